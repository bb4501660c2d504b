"""The Shuffler paper (Liao et al., TOS 2026): Shuffler and Page policies, plan, figures and claims."""
