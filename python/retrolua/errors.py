"""The package's one exception type."""


class RetroluaError(Exception):
    """The emulator refused a request (the message is its reason), or could not be started or reached."""
