"""The Storage view: storage tiers and their dialogs."""
