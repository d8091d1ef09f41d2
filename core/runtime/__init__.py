"""The runtime floor (layer 1, after array.py and core.py): what runs programs on devices.

client.py makes jaxlib's PJRT CPU client and puts values on devices; distributed.py joins
processes before the client starts; executable.py compiles MLIR modules and launches them;
sharding.py places arrays over meshes and installs the `array_runtime.Runtime` protocol
through which an Array asks for its devices, sharding and blocks; placement.py lists the live
Arrays. The public `didax.sharding` and `didax.distributed` re-export from here.
"""
