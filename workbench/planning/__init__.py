"""Planning helpers that lay out many devices at once (fill a rack, spread servers over
racks), judged by the rules' budgets.  Qt-free; they sit above ``rules`` because they
ask its verdicts, and return edits of :mod:`workbench.model.ops`."""
