"""The design out to NetBox and back: bulk-import files, their manifest, and reading
them (or NetBox's own CSV exports of the same objects) into a design again.

Qt-free.  :func:`write_netbox` writes a folder (:mod:`workbench.netbox.export`);
:func:`read_netbox` reads one back (:mod:`workbench.netbox.importer`).  The mapping
between the two models is documented in :mod:`workbench.netbox.columns`.
"""

from __future__ import annotations

from workbench.netbox.export import write_netbox
from workbench.netbox.importer import NetBoxImportError, read_netbox

__all__ = ["NetBoxImportError", "read_netbox", "write_netbox"]
