"""Gymnasium environments for gaitsim, installed as ``gaitsim.envs`` (see setup.cfg)."""
