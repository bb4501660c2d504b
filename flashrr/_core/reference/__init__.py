"""The pure-Python reference engine, layer by layer like the compiled one:
``sched`` (dies, channels, queues), ``ftl`` (mapping, frontiers), ``cache``
(DRAM LRU), ``reclaim`` (GC, RR, migrations, the background loop),
``features`` (page counters) and ``engine`` (the request loop).  Written for
clarity; the compiled engine must give identical results."""
