"""The HotR paper (Wu et al., DATE 2019): HotR, Rails, TTFlash and Optimal policies, plan, figures and
claims."""
