"""What the design hands to other people and tools: reports now; workbooks, slurm.conf,
Kubernetes manifests and NetBox files later.  No Qt here."""
