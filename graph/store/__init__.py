"""The storage seam: the primitives each backend implements (``protocol``), the chooser that
opens a backend from a URI (``backends``), and durable file writes (``durable``)."""
