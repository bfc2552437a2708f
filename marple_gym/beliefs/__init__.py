"""Agents with beliefs: what they perceive, where they think objects are, and how they search by belief.

::

    import numpy as np
    from marple_gym.beliefs import false_belief_episode, search_episode

    episode = search_episode(np.random.default_rng(0))           # an agent searches the apartment for an object
    sally_anne = false_belief_episode(np.random.default_rng(3))   # ...after its object was moved while it was away
    trace = sally_anne.trace()                                     # every state, replayed exactly
    beliefs = trace.beliefs(sally_anne.goal_code, sally_anne.prior)   # its belief at every step

See docs/beliefs.md.
"""

from marple_gym.beliefs.belief import ObjectBelief
from marple_gym.beliefs.episodes import (
    EXCLUSION,
    KINDS,
    EpisodeError,
    EpisodeTrace,
    SearchEpisode,
    Searcher,
    false_belief_episode,
    sample_prior,
    search_episode,
)
from marple_gym.beliefs.houses import apartment_config
from marple_gym.beliefs.locations import Locations, locations_of, unique_objects
from marple_gym.beliefs.perception import PERCEPTIONS, Percept, perceive
from marple_gym.beliefs.search import SearchPolicy, SearchSettings

__all__ = [
    "EXCLUSION",
    "EpisodeError",
    "EpisodeTrace",
    "KINDS",
    "Locations",
    "ObjectBelief",
    "PERCEPTIONS",
    "Percept",
    "SearchEpisode",
    "SearchPolicy",
    "SearchSettings",
    "Searcher",
    "apartment_config",
    "false_belief_episode",
    "locations_of",
    "perceive",
    "sample_prior",
    "search_episode",
    "unique_objects",
]
