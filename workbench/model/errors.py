"""The one error an edit of the model raises."""

from __future__ import annotations


class EditError(ValueError):
    """An edit the model refuses, with a message fit for the user."""
