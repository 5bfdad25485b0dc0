"""The Racks view: rack elevations, the rack form, dragging devices and the fill dialogs."""
