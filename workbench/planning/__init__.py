"""Planning helpers that lay out many devices at once (fill a rack, spread servers over
racks, add a storage tier, size PDUs) and generate fabrics (:mod:`workbench.planning.fabric`),
judged by the rules' budgets.  Qt-free; they sit above ``rules`` because they ask its
verdicts, below ``templates`` which build whole designs with them, and return edits of
:mod:`workbench.model.ops`: the window pushes them as one undo step."""
