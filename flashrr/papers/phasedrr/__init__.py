"""The PhasedRR paper (Li et al., MSST 2024): PhasedRR, RL-RR and Reallocation policies, plan, figures
and claims."""
