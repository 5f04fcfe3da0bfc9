"""Records: the JSON objects the C++ formatters produce, as dicts with attribute access."""


class Record(dict):
    """A dict (exactly the library's JSON object) whose keys are also attributes: ``plan.fits``."""

    __slots__ = ()

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __dir__(self):
        return list(self.keys()) + dir(dict)
