"""The Cocktail paper (Zhang et al., TCAD 2023): Cocktail, redFTL and IPR policies, plan, figures and
claims."""
