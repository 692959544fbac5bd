"""Signed firmware updates (docs/update.md), in parts loaded only when needed: ``bundle`` (the
format and the release key), ``ed25519`` + ``sha512`` (verification), ``slots`` (the
receiver), ``boot`` (the slot chosen at every start: kept small, as is this file), ``sign``
(the host's signer)."""
