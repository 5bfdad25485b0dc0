"""QPainter drawing shared by the screen, PDF printing and SVG export (QtGui only, no widgets)."""
