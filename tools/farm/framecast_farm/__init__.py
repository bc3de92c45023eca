"""framecast-farm: `framecast interpolate` jobs cut into segments and run on a Dask cluster.

Each file is cut into segments of about a minute of input; every segment is one Dask task
that runs `framecast interpolate --segment K/N` on a worker. The driver collects the parts in
order, joins them by stream copy and muxes the source's audio, subtitles and metadata once.
"""
