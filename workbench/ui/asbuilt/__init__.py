"""The as-built view: captures imported from the floor and their differences."""
