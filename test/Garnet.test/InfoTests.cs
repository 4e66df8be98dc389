// INFO as monitoring tools read it: sections "# Name", "field:value" lines, Redis 7.2's field names in Redis's order,
// and counters that move with real traffic.
using Garnet.client;
using Garnet.Options;
using StackExchange.Redis;

namespace Garnet.test;

/// <summary>Parses INFO text the way redis_exporter and scripts do.</summary>
public sealed class InfoText
{
    public List<string> Sections { get; } = new();
    public Dictionary<string, List<(string field, string value)>> Fields { get; } = new(StringComparer.OrdinalIgnoreCase);

    public InfoText(string text)
    {
        List<(string, string)>? current = null;
        foreach (var line in text.Split("\r\n"))
        {
            if (line.Length == 0) continue;
            if (line.StartsWith("# "))
            {
                Sections.Add(line[2..]);
                Fields[line[2..]] = current = new List<(string, string)>();
                continue;
            }
            int colon = line.IndexOf(':');
            Assert.That(colon, Is.GreaterThan(0), $"not a field line: '{line}'");
            Assert.That(current, Is.Not.Null, $"a field before any section: '{line}'");
            current!.Add((line[..colon], line[(colon + 1)..]));
        }
    }

    public string this[string field] => Fields.Values.SelectMany(f => f).First(f => f.field == field).value;
    public long Long(string field) => long.Parse(this[field]);
    public bool Has(string field) => Fields.Values.SelectMany(f => f).Any(f => f.field == field);
}

[TestFixture]
public class InfoTests : ServerFixture
{
    protected override void Configure(GarnetServerOptions o) => o.Databases = 4;

    // Redis 7.2's fields, in its order (src/server.c genRedisInfoString); conditional ones left out.
    private static readonly Dictionary<string, string[]> s_redisFields = new()
    {
        ["Server"] = ["redis_version", "redis_git_sha1", "redis_git_dirty", "redis_build_id", "redis_mode", "os", "arch_bits",
            "monotonic_clock", "multiplexing_api", "atomicvar_api", "gcc_version", "process_id", "process_supervised", "run_id",
            "tcp_port", "server_time_usec", "uptime_in_seconds", "uptime_in_days", "hz", "configured_hz", "lru_clock",
            "executable", "config_file", "io_threads_active", "listener0"],
        ["Clients"] = ["connected_clients", "cluster_connections", "maxclients", "client_recent_max_input_buffer",
            "client_recent_max_output_buffer", "blocked_clients", "tracking_clients", "clients_in_timeout_table",
            "total_blocking_keys", "total_blocking_keys_on_nokey"],
        ["Memory"] = ["used_memory", "used_memory_human", "used_memory_rss", "used_memory_rss_human", "used_memory_peak",
            "used_memory_peak_human", "used_memory_peak_perc", "used_memory_overhead", "used_memory_startup", "used_memory_dataset",
            "used_memory_dataset_perc", "allocator_allocated", "allocator_active", "allocator_resident", "total_system_memory",
            "total_system_memory_human", "used_memory_lua", "used_memory_vm_eval", "used_memory_lua_human", "used_memory_scripts_eval",
            "number_of_cached_scripts", "number_of_functions", "number_of_libraries", "used_memory_vm_functions", "used_memory_vm_total",
            "used_memory_vm_total_human", "used_memory_functions", "used_memory_scripts", "used_memory_scripts_human", "maxmemory",
            "maxmemory_human", "maxmemory_policy", "allocator_frag_ratio", "allocator_frag_bytes", "allocator_rss_ratio",
            "allocator_rss_bytes", "rss_overhead_ratio", "rss_overhead_bytes", "mem_fragmentation_ratio", "mem_fragmentation_bytes",
            "mem_not_counted_for_evict", "mem_replication_backlog", "mem_total_replication_buffers", "mem_clients_slaves",
            "mem_clients_normal", "mem_cluster_links", "mem_aof_buffer", "mem_allocator", "active_defrag_running",
            "lazyfree_pending_objects", "lazyfreed_objects"],
        ["Persistence"] = ["loading", "async_loading", "current_cow_peak", "current_cow_size", "current_cow_size_age",
            "current_fork_perc", "current_save_keys_processed", "current_save_keys_total", "rdb_changes_since_last_save",
            "rdb_bgsave_in_progress", "rdb_last_save_time", "rdb_last_bgsave_status", "rdb_last_bgsave_time_sec",
            "rdb_current_bgsave_time_sec", "rdb_saves", "rdb_last_cow_size", "rdb_last_load_keys_expired",
            "rdb_last_load_keys_loaded", "aof_enabled", "aof_rewrite_in_progress", "aof_rewrite_scheduled",
            "aof_last_rewrite_time_sec", "aof_current_rewrite_time_sec", "aof_last_bgrewrite_status", "aof_rewrites",
            "aof_rewrites_consecutive_failures", "aof_last_write_status", "aof_last_cow_size", "module_fork_in_progress",
            "module_fork_last_cow_size"],
        ["Stats"] = ["total_connections_received", "total_commands_processed", "instantaneous_ops_per_sec", "total_net_input_bytes",
            "total_net_output_bytes", "total_net_repl_input_bytes", "total_net_repl_output_bytes", "instantaneous_input_kbps",
            "instantaneous_output_kbps", "instantaneous_input_repl_kbps", "instantaneous_output_repl_kbps", "rejected_connections",
            "sync_full", "sync_partial_ok", "sync_partial_err", "expired_keys", "expired_stale_perc", "expired_time_cap_reached_count",
            "expire_cycle_cpu_milliseconds", "evicted_keys", "evicted_clients", "total_eviction_exceeded_time",
            "current_eviction_exceeded_time", "keyspace_hits", "keyspace_misses", "pubsub_channels", "pubsub_patterns",
            "pubsubshard_channels", "latest_fork_usec", "total_forks", "migrate_cached_sockets", "slave_expires_tracked_keys",
            "active_defrag_hits", "active_defrag_misses", "active_defrag_key_hits", "active_defrag_key_misses",
            "total_active_defrag_time", "current_active_defrag_time", "tracking_total_keys", "tracking_total_items",
            "tracking_total_prefixes", "unexpected_error_replies", "total_error_replies", "dump_payload_sanitizations",
            "total_reads_processed", "total_writes_processed", "io_threaded_reads_processed", "io_threaded_writes_processed",
            "reply_buffer_shrinks", "reply_buffer_expands", "eventloop_cycles", "eventloop_duration_sum",
            "eventloop_duration_cmd_sum", "instantaneous_eventloop_cycles_per_sec", "instantaneous_eventloop_duration_usec",
            "acl_access_denied_auth", "acl_access_denied_cmd", "acl_access_denied_key", "acl_access_denied_channel"],
        ["Replication"] = ["role", "connected_slaves", "master_failover_state", "master_replid", "master_replid2", "master_repl_offset",
            "second_repl_offset", "repl_backlog_active", "repl_backlog_size", "repl_backlog_first_byte_offset", "repl_backlog_histlen"],
        ["CPU"] = ["used_cpu_sys", "used_cpu_user", "used_cpu_sys_children", "used_cpu_user_children"],
        ["Cluster"] = ["cluster_enabled"],
    };

    private static readonly string[] s_defaultSections =
        ["Server", "Clients", "Memory", "Persistence", "Stats", "Replication", "CPU", "Modules", "Errorstats", "Cluster", "Keyspace"];

    private InfoText Info(RespClient c, params string[] sections) =>
        new(c.Execute(["INFO", .. sections]).Text!);

    [Test]
    public void DefaultInfoHasEveryRedisFieldInRedisOrder()
    {
        using var c = _server.Client();
        c.Execute("SET", "k", "v");
        var info = Info(c);
        Assert.That(info.Sections, Is.EqualTo(s_defaultSections));
        foreach (var (section, expected) in s_redisFields)
        {
            var names = info.Fields[section].Select(f => f.field).ToList();
            // Redis's fields come first, in Redis's order; this server's own figures may follow.
            Assert.That(names.Take(expected.Length), Is.EqualTo(expected), section);
            Assert.That(names, Is.Unique, section);
        }
        foreach (var (field, value) in info.Fields.Values.SelectMany(f => f))
            Assert.That(value, Does.Not.Contain('\r').And.Not.Contain('\n'), field);
        Assert.That(info["redis_version"], Does.StartWith("7.2"));
        Assert.That(info.Long("tcp_port"), Is.EqualTo(_server.Port));
        Assert.That(info["listener0"], Is.EqualTo($"name=tcp,bind=127.0.0.1,port={_server.Port}"));
        Assert.That(info.Long("process_id"), Is.EqualTo(Environment.ProcessId));
        Assert.That(info["maxmemory_policy"], Is.EqualTo("noeviction"));
        Assert.That(info["role"], Is.EqualTo("master"));
        Assert.That(info.Long("cluster_enabled"), Is.EqualTo(0));
        Assert.That(info.Fields["Keyspace"].Select(f => f.field), Does.Contain("db0"));
        // Numbers are numbers (exporters parse them as floats).
        foreach (var f in new[] { "used_memory", "used_memory_rss", "used_memory_peak", "total_system_memory", "allocator_allocated", "used_cpu_sys", "used_cpu_user", "mem_fragmentation_ratio", "expired_stale_perc", "instantaneous_input_kbps" })
            Assert.That(double.TryParse(info[f], System.Globalization.NumberStyles.Float, System.Globalization.CultureInfo.InvariantCulture, out _), Is.True, f + "=" + info[f]);
        Assert.That(info.Long("used_memory"), Is.GreaterThan(0));
        Assert.That(info.Long("used_memory_rss"), Is.GreaterThan(0));
        Assert.That(info.Long("used_memory_peak"), Is.GreaterThanOrEqualTo(info.Long("used_memory")));
        Assert.That(info.Long("total_system_memory"), Is.GreaterThan(0));
    }

    [Test]
    public void SectionSelectionFollowsRedis()
    {
        using var c = _server.Client();
        Assert.That(Info(c, "default").Sections, Is.EqualTo(s_defaultSections));
        var all = Info(c, "all").Sections;
        Assert.That(all, Is.SupersetOf(s_defaultSections).And.Contain("Latencystats"));
        Assert.That(Info(c, "everything").Sections, Is.EqualTo(all));
        Assert.That(Info(c, "KEYSPACE", "server").Sections, Is.EqualTo(new[] { "Server", "Keyspace" }), "Redis's order, not the request's");
        Assert.That(Info(c, "clients", "stats", "clients").Sections, Is.EqualTo(new[] { "Clients", "Stats" }));
        Assert.That(Info(c, "cpu", "default").Sections, Is.EqualTo(s_defaultSections));
        Assert.That(Info(c, "modules").Sections, Is.EqualTo(new[] { "Modules" }));
        Assert.That(Info(c, "errorstats").Sections, Is.EqualTo(new[] { "Errorstats" }));
        Assert.That(c.Execute("INFO", "nosuchsection").Text, Is.Empty);
        var text = c.Execute("INFO", "server", "clients").Text!;
        Assert.That(text, Does.Contain("\r\n\r\n# Clients\r\n"), "a blank line between sections");
        Assert.That(text, Does.EndWith("\r\n"));
    }

    [Test]
    public void ScriptAndFunctionFiguresFollowLoadsRunsAndFlushes()
    {
        using var c = _server.Client();
        c.Execute("SCRIPT", "FLUSH");
        c.Execute("FUNCTION", "FLUSH");
        var empty = Info(c, "memory");
        Assert.That(empty.Long("number_of_cached_scripts"), Is.EqualTo(0));
        Assert.That(empty.Long("number_of_functions"), Is.EqualTo(0));
        Assert.That(empty.Long("used_memory_scripts"), Is.EqualTo(0));

        string body1 = "return 1", body2 = "return redis.call('SET', KEYS[1], string.rep('x', 1000))";
        c.Execute("SCRIPT", "LOAD", body1);
        c.Execute("EVAL", body2, "1", "info:lua");
        const string lib = "#!lua name=infolib\nredis.register_function('f1', function() return 1 end)\nredis.register_function('f2', function() return 2 end)";
        c.Execute("FUNCTION", "LOAD", lib);
        var loaded = Info(c, "memory");
        Assert.That(loaded.Long("number_of_cached_scripts"), Is.EqualTo(2), "SCRIPT LOAD and EVAL each cache a script");
        Assert.That(loaded.Long("used_memory_scripts_eval"), Is.EqualTo(body1.Length + body2.Length));
        Assert.That(loaded.Long("number_of_functions"), Is.EqualTo(2));
        Assert.That(loaded.Long("number_of_libraries"), Is.EqualTo(1));
        Assert.That(loaded.Long("used_memory_functions"), Is.EqualTo(lib.Length));
        Assert.That(loaded.Long("used_memory_scripts"), Is.EqualTo(loaded.Long("used_memory_scripts_eval") + loaded.Long("used_memory_functions")));
        long vmEval = loaded.Long("used_memory_vm_eval"), vmFunctions = loaded.Long("used_memory_vm_functions");
        Assert.That(vmEval, Is.GreaterThan(10_000), "a Lua state with the libraries loaded holds tens of KB");
        Assert.That(vmFunctions, Is.GreaterThan(10_000));
        Assert.That(loaded.Long("used_memory_lua"), Is.EqualTo(vmEval));
        Assert.That(loaded.Long("used_memory_vm_total"), Is.EqualTo(vmEval + vmFunctions));

        c.Execute("SCRIPT", "FLUSH");
        c.Execute("FUNCTION", "FLUSH");
        var flushed = Info(c, "memory");
        Assert.That(flushed.Long("number_of_cached_scripts"), Is.EqualTo(0));
        Assert.That(flushed.Long("number_of_libraries"), Is.EqualTo(0));
        Assert.That(flushed.Long("used_memory_scripts"), Is.EqualTo(0));
        Assert.That(flushed.Long("used_memory_vm_eval"), Is.LessThan(vmEval), "SCRIPT FLUSH drops the EVAL Lua state");
    }

    [Test]
    public void KeyspaceHitsAndMissesCountReadLookups()
    {
        using var c = _server.Client();
        c.Execute("SET", "hm:a", "1");
        c.Execute("SET", "hm:b", "22");
        var before = Info(c, "stats");
        c.Execute("GET", "hm:a");                  // hit
        c.Execute("GET", "hm:none");               // miss
        c.Execute("MGET", "hm:a", "hm:b", "hm:x"); // 2 hits, 1 miss
        c.Execute("EXISTS", "hm:a", "hm:y");       // hit, miss
        c.Execute("TTL", "hm:b");                  // hit
        c.Execute("STRLEN", "hm:z");               // miss
        c.Execute("SET", "hm:c", "3");             // writes do not count
        c.Execute("INCR", "hm:c");
        c.Execute("DEL", "hm:c");
        c.Execute("MEMORY", "USAGE", "hm:a");      // not a read lookup in Redis
        var after = Info(c, "stats");
        Assert.That(after.Long("keyspace_hits") - before.Long("keyspace_hits"), Is.EqualTo(5));
        Assert.That(after.Long("keyspace_misses") - before.Long("keyspace_misses"), Is.EqualTo(4));
    }

    [Test]
    public void TrafficCountersMove()
    {
        using var c = _server.Client();
        var before = Info(c, "stats");
        var big = new string('x', 10_000);
        for (int i = 0; i < 10; i++) c.Execute("ECHO", big);
        var after = Info(c, "stats");
        Assert.That(after.Long("total_net_input_bytes") - before.Long("total_net_input_bytes"), Is.GreaterThanOrEqualTo(100_000));
        Assert.That(after.Long("total_net_output_bytes") - before.Long("total_net_output_bytes"), Is.GreaterThanOrEqualTo(100_000));
        Assert.That(after.Long("total_commands_processed") - before.Long("total_commands_processed"), Is.EqualTo(11), "10 ECHOs and this INFO");
    }

    [Test]
    public void InstantaneousOpsPerSecFromSamples()
    {
        using var c = _server.Client();
        var stats = _server.Server.Server.Stats;
        stats.Sample();
        for (int i = 0; i < 500; i++) c.Execute("PING");
        stats.Sample();
        var info = Info(c, "stats");
        Assert.That(info.Long("instantaneous_ops_per_sec"), Is.GreaterThan(0));
        Assert.That(double.Parse(info["instantaneous_input_kbps"], System.Globalization.CultureInfo.InvariantCulture), Is.GreaterThan(0));
    }

    [Test]
    public void ErrorStatsCountByCode()
    {
        using var c = _server.Client();
        var before = Info(c, "errorstats", "stats");
        long Count(InfoText i, string code) => i.Has("errorstat_" + code) ? long.Parse(i["errorstat_" + code].Replace("count=", "")) : 0;
        c.Execute("NOSUCHCOMMAND");
        c.Execute("GET");
        c.Execute("SET", "es:s", "not-hll");
        c.Execute("PFCOUNT", "es:s");
        var after = Info(c, "errorstats", "stats");
        Assert.That(Count(after, "ERR") - Count(before, "ERR"), Is.EqualTo(2));
        Assert.That(Count(after, "WRONGTYPE") - Count(before, "WRONGTYPE"), Is.EqualTo(1));
        Assert.That(after.Long("total_error_replies") - before.Long("total_error_replies"), Is.EqualTo(3));
        Assert.That(after["errorstat_ERR"], Does.Match("^count=[0-9]+$"));
    }

    [Test]
    public void AvgTtlIsEstimatedFromExpiringKeys()
    {
        using var c = _server.Client();
        c.Execute("SELECT", "2");
        for (int i = 0; i < 50; i++) c.Execute("SET", "ttl:" + i, "v", "EX", "1000");
        c.Execute("SET", "ttl:none", "v");
        c.Execute("SELECT", "3");
        c.Execute("SET", "plain", "v");
        var lines = Info(c, "keyspace").Fields["Keyspace"].ToDictionary(f => f.field, f => f.value);
        var db2 = lines["db2"].Split(',').ToDictionary(p => p.Split('=')[0], p => long.Parse(p.Split('=')[1]));
        Assert.That(db2["keys"], Is.EqualTo(51));
        Assert.That(db2["expires"], Is.EqualTo(50));
        Assert.That(db2["avg_ttl"], Is.InRange(900_000, 1_000_000), "milliseconds, as Redis");
        Assert.That(lines["db3"], Is.EqualTo("keys=1,expires=0,avg_ttl=0"));
        c.Execute("SELECT", "2");
        c.Execute("FLUSHDB");
    }

    [Test]
    public void ExpiredKeysAndResetStat()
    {
        using var c = _server.Client();
        c.Execute("GET", "rs:missing");
        c.Execute("NOSUCHCOMMAND");
        var store = _server.Server.Server.Store;
        Assert.That(Info(c, "stats").Long("expired_keys"), Is.EqualTo(store.ExpiredKeys).Or.LessThan(store.ExpiredKeys));
        RespAssert.Simple(c.Execute("CONFIG", "RESETSTAT"), "OK");
        var info = Info(c, "stats", "errorstats");
        Assert.That(info.Long("keyspace_misses"), Is.EqualTo(0));
        Assert.That(info.Long("keyspace_hits"), Is.EqualTo(0));
        Assert.That(info.Long("expired_keys"), Is.EqualTo(0));
        Assert.That(info.Long("total_error_replies"), Is.EqualTo(0));
        Assert.That(info.Fields["Errorstats"], Is.Empty);
        Assert.That(info.Long("total_connections_received"), Is.EqualTo(0));
    }

    [Test]
    public void MemoryFiguresFollowTheData()
    {
        using var c = _server.Client();
        var before = Info(c, "memory");
        var value = new string('m', 1000);
        c.Execute("SELECT", "1");
        for (int i = 0; i < 20_000; i++) c.Send("SET", "mem:" + i, value);
        for (int i = 0; i < 20_000; i++) c.Read();
        var after = Info(c, "memory");
        Assert.That(after.Long("used_memory_dataset"), Is.GreaterThan(before.Long("used_memory_dataset")), "20 MB of values");
        Assert.That(after.Long("used_memory"), Is.GreaterThan(after.Long("used_memory_dataset")));
        Assert.That(after.Long("used_memory_dataset") + after.Long("used_memory_overhead"), Is.EqualTo(after.Long("used_memory")));
        Assert.That(after["used_memory_human"], Does.Match(@"^[0-9]+(\.[0-9]{2}[KMGT])?B?$"));
        Assert.That(after.Long("maxmemory"), Is.EqualTo(1L << 30));
        c.Execute("FLUSHDB", "SYNC");
    }

    [Test]
    public void StackExchangeRedisReadsInfo([Values(RedisProtocol.Resp2, RedisProtocol.Resp3)] RedisProtocol protocol)
    {
        using var mux = _server.Multiplexer(protocol);
        var server = mux.GetServer(mux.GetEndPoints()[0]);
        var db = mux.GetDatabase(1);
        db.StringSet("se:hit", "1");
        var groups = server.Info();
        // The client's RESP3 "txt:" quirk undone (StackExchangeInfo); our own bytes are checked raw below.
        var names = StackExchangeInfo.SectionNames(groups, protocol);
        Assert.That(names, Is.SupersetOf(new[] { "Server", "Clients", "Memory", "Stats", "Keyspace" }));
        using (var raw = _server.Client())
        {
            if (protocol == RedisProtocol.Resp3) raw.Execute("HELLO", "3");
            var reply = raw.Execute("INFO");
            Assert.That(reply.Type, Is.EqualTo(protocol == RedisProtocol.Resp3 ? RespType.Verbatim : RespType.BulkString));
            Assert.That(reply.Text, Does.StartWith("# Server\r\nredis_version:"));
        }
        long hits = long.Parse(server.Info("stats").Single().Single(p => p.Key == "keyspace_hits").Value);
        db.StringGet("se:hit");
        long hitsAfter = long.Parse(server.Info("stats").Single().Single(p => p.Key == "keyspace_hits").Value);
        Assert.That(hitsAfter, Is.EqualTo(hits + 1));
        db.KeyDelete("se:hit");
    }
}

[TestFixture]
public class InfoConnectionCounterTests
{
    [Test]
    public void RejectedConnectionsGrowWhenMaxClientsIsReached()
    {
        using var server = new TestServer(o => o.MaxClients = 1);
        using var a = server.Client();
        RespAssert.Simple(a.Execute("PING"), "PONG");
        for (int i = 0; i < 3; i++)
        {
            using var refused = server.Client();
            RespAssert.Error(refused.Read(), "ERR max number of clients reached");
        }
        var info = new InfoText(a.Execute("INFO", "stats").Text!);
        Assert.That(info.Long("rejected_connections"), Is.EqualTo(3));
        Assert.That(info.Long("total_connections_received"), Is.EqualTo(1), "refused connections are not received ones, as in Redis");
    }
}
