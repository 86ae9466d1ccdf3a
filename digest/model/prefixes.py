"""The model-string prefixes answered in process (``offline/rules``, a test's ``scripted/*``).

A module of their own, importing nothing: code that only needs to tell such a model from a
provider's (the stats' call counts) reads them here without loading the offline judge.
"""

#: model strings answered by the offline rules, in process (``digest.model.offline``)
OFFLINE_PREFIX = "offline/"
#: model strings answered by a registered handler, in process (``digest.model.scripted``)
SCRIPTED_PREFIX = "scripted/"
