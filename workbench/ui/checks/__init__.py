"""The Checks view: the rules' findings, listed and filterable."""
