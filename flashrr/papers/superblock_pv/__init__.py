"""The superblock process-variation paper (Tseng et al., "Are Superpages Super-fast?"): plan, figures,
tables and claims over the PV model of :mod:`flashrr.pv`."""
