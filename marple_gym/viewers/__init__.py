"""Viewers, built on the drawing (:mod:`marple_gym.rendering`), the envs and the recordings.

``play`` (steer an env by keyboard in a window) and ``replays`` (recorded
trajectories and whodunit episodes as animations and soundtracks).
"""
