"""Gangfight (gangfightgames.com): close combat from the Gangfight rules' Combat page (Melee
Combat steps 1-6, Armour, Wounds, Incapacitation, Special Attacks, Attacking with Two Weapons,
Falling, Free Strikes, Slam! and Trample, Knocked Down), with the action points and the Move
action of its Actions and Action Points page and the profiles of its Model Profiles page."""
