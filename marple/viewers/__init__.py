"""Viewers, built on the drawing (:mod:`marple_gym.rendering`), the envs and the recordings.

``play`` (steer an env by keyboard in a window), ``replays`` (recorded
trajectories and whodunit episodes as pictures) and ``replay_files`` (an episode
written as an animation and a soundtrack).
"""
