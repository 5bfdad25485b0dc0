"""The real-NetBox harness of tests/test_netbox_live.py (see harness.py)."""
