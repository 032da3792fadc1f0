// Placeholder until the rule tests land.
