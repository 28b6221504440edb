"""Memory sealed at rest: content reaches the disk only as ciphertext under a key of its own
(``sealed``), kept in a key store outside the database (``keyfile``); erasure destroys the key."""
