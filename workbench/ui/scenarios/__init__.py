"""The Scenarios panel, the Save as Scenario action and the scenario wizard dialog."""
