"""The Qt window: a package per view, and the shell around them.

``racks`` (rack elevations, fills), ``floor`` (the hall plan), ``fabric``, ``storage``,
``versions``, ``checks``, ``asbuilt``, ``estimates`` and ``catalog`` (the palette and
device types) are the views; ``shell`` holds the main window, the document, the file,
print, export and import actions, the live figures, the summary strip and the
inspector.  ``commands`` is the one undo command every edit goes through; ``widgets``,
``zoom_view`` and ``seen`` are small helpers the views share.  Views hold no truth of
their own: they read the document and push model edits.
"""
