"""The Floor view: the hall's rows and racks drawn to scale."""
