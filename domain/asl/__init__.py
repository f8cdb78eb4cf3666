"""Advanced Squad Leader, chapter A11 Close Combat (game system ``asl``), after the ASL Rulebook
(2nd edition): CC odds and Kill Numbers, Partial Kills, simultaneous and sequential CC, Melee,
Ambush, Withdrawal and Infiltration, concealment, leaders and SMC, prisoners, CC against and by
vehicles."""
