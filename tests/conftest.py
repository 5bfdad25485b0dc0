"""Shared test setup.

Qt must use the offscreen platform before any QApplication exists, or pytest aborts on
a machine without a display.  Keep this file small: area-specific fixtures live in the
test modules of that area.
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from workbench.catalog.item import CatalogItem, Interface  # noqa: E402
from workbench.model import Design, Device, Rack, Row, Site  # noqa: E402


def _tiny_design() -> Design:
    """Two rows: a GPU rack with two 8U servers and a switch, and an empty rack."""
    types = {
        "rack-42u": CatalogItem(slug="rack-42u", kind="rack", manufacturer="Generic",
                                model="42U rack", u_height=42),
        "nvidia-dgx-h100": CatalogItem(slug="nvidia-dgx-h100", kind="server", manufacturer="NVIDIA",
                                       model="DGX H100", u_height=8, gpu="nvidia-h100-sxm",
                                       gpu_count=8, max_power_w=10200, typical_power_w=8500,
                                       weight=130.45, tflops={}),
        "nvidia-h100-sxm": CatalogItem(slug="nvidia-h100-sxm", kind="gpu", manufacturer="NVIDIA",
                                       model="H100 SXM5 80GB",
                                       tflops={"bf16": 989.4, "fp8": 1978.9}, max_power_w=700),
        "mgmt-48": CatalogItem(slug="mgmt-48", kind="switch", manufacturer="NVIDIA",
                               model="SN2201", u_height=1, max_power_w=100, weight=8,
                               interfaces=(Interface("eth1", "1000base-t"),)),
    }
    gpu_rack = Rack(id="r1", name="A01", rack_type="rack-42u", cooling="rear-door",
                    power_limit_kw=50.0, devices=[
                        Device(id="d1", name="dgx-001", device_type="nvidia-dgx-h100", position=2),
                        Device(id="d2", name="dgx-002", device_type="nvidia-dgx-h100", position=12),
                        Device(id="s1", name="mgmt-a01", device_type="mgmt-48", position=42),
                    ])
    empty = Rack(id="r2", name="B01", rack_type="rack-42u")
    return Design(name="Tiny design", sites=[Site(id="s", name="Hall 1", rows=[
        Row(id="row-a", name="Row A", racks=[gpu_rack]),
        Row(id="row-b", name="Row B", racks=[empty]),
    ])], device_types=types)


@pytest.fixture
def tiny_design() -> Design:
    """A hand-built two-rack design that needs no catalog or template."""
    return _tiny_design()
