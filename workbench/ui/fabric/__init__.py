"""The Fabric view: the network planes drawn, inspected, generated and compared with as-built."""
