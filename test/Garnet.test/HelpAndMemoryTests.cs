// HELP of every container command (Redis's shape and wording), unknown-subcommand errors naming the right HELP, and
// MEMORY STATS / DOCTOR / MALLOC-STATS / PURGE.
using Garnet.client;
using Garnet.server.Commands;

namespace Garnet.test;

[TestFixture]
public class HelpAndMemoryTests : ServerFixture
{
    private static IEnumerable<string> Containers() =>
        CommandTable.Default.Commands.Where(c => c.HasSubcommands).Select(c => c.Name.ToUpperInvariant());

    [TestCaseSource(nameof(Containers))]
    public void EveryContainerHasHelp(string command)
    {
        using var c = _server.Client();
        var reply = c.Execute(command, "help");
        Assert.That(reply.Type, Is.EqualTo(RespType.Array), reply.ToString());
        var lines = reply.Elements!.Select(e => { Assert.That(e.Type, Is.EqualTo(RespType.SimpleString)); return e.Text!; }).ToList();
        Assert.That(lines[0], Is.EqualTo($"{command} <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
        Assert.That(lines[^2..], Is.EqualTo(new[] { "HELP", "    Print this help." }));
        // Every subcommand the server has is described (a line that starts with its name).
        var definition = CommandTable.Default.Find(command)!;
        foreach (var sub in definition.Subcommands.Where(s => s.Name != "help"))
            Assert.That(lines.Any(l => l.StartsWith(sub.Name.ToUpperInvariant(), StringComparison.Ordinal)), $"{command} HELP describes {sub.Name.ToUpperInvariant()}");
        RespAssert.Error(c.Execute(command, "nosuchsub"), $"ERR unknown subcommand 'nosuchsub'. Try {command} HELP.");
        RespAssert.Error(c.Execute(command.ToLowerInvariant(), "nosuchsub", "x"), $"ERR unknown subcommand 'nosuchsub'. Try {command} HELP.");
    }

    [Test]
    public void ContainersIncludeTheUsualOnes() =>
        Assert.That(Containers(), Is.SupersetOf(new[] { "CLIENT", "CONFIG", "COMMAND", "OBJECT", "MEMORY" }));

    [Test]
    public void MemoryHelpIsRedisText()
    {
        using var c = _server.Client();
        var lines = c.Execute("MEMORY", "HELP").Elements!.Select(e => e.Text).ToArray();
        Assert.That(lines, Is.EqualTo(new[]
        {
            "MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
            "DOCTOR", "    Return memory problems reports.",
            "MALLOC-STATS", "    Return internal statistics report from the memory allocator.",
            "PURGE", "    Attempt to purge dirty pages for reclamation by the allocator.",
            "STATS", "    Return information about the memory usage of the server.",
            "USAGE <key> [SAMPLES <count>]", "    Return memory in bytes used by <key> and its value. Nested values are",
            "    sampled up to <count> times (default: 5, 0 means sample all).",
            "HELP", "    Print this help.",
        }));
        RespAssert.Error(c.Execute("MEMORY", "HELP", "extra"), "ERR wrong number of arguments for 'memory|help' command");
    }

    [Test]
    public void MemoryStatsHasRedisShape()
    {
        using var c = _server.Client();
        c.Execute("SELECT", "2");
        for (int i = 0; i < 100; i++) c.Execute("SET", "ms:" + i, "v");
        var m = RespAssert.Map(c.Execute("MEMORY", "STATS"));
        string[] keys = ["peak.allocated", "total.allocated", "startup.allocated", "replication.backlog", "clients.slaves", "clients.normal",
            "cluster.links", "aof.buffer", "lua.caches", "functions.caches", "overhead.total", "keys.count", "keys.bytes-per-key",
            "dataset.bytes", "dataset.percentage", "peak.percentage", "allocator.allocated", "allocator.active", "allocator.resident",
            "allocator-fragmentation.ratio", "allocator-fragmentation.bytes", "allocator-rss.ratio", "allocator-rss.bytes",
            "rss-overhead.ratio", "rss-overhead.bytes", "fragmentation", "fragmentation.bytes"];
        Assert.That(m.Keys, Is.SupersetOf(keys).And.Contain("db.2"));
        Assert.That(m.Count, Is.EqualTo(keys.Length + m.Keys.Count(k => k.StartsWith("db."))));
        Assert.That(m["keys.count"].Integer, Is.GreaterThanOrEqualTo(100));
        Assert.That(m["total.allocated"].Integer, Is.GreaterThan(0));
        Assert.That(m["peak.allocated"].Integer, Is.GreaterThanOrEqualTo(m["total.allocated"].Integer));
        Assert.That(double.Parse(m["dataset.percentage"].Text!, System.Globalization.CultureInfo.InvariantCulture), Is.InRange(0, 100));
        var db = RespAssert.Map(m["db.2"]);
        Assert.That(db.Keys, Is.EqualTo(new[] { "overhead.hashtable.main", "overhead.hashtable.expires", "overhead.hashtable.slot-to-keys" }));
        c.Execute("FLUSHDB");
    }

    [Test]
    public void MemoryDoctorMallocStatsPurge()
    {
        using var c = _server.Client();
        var doctor = c.Execute("MEMORY", "DOCTOR");
        Assert.That(doctor.Type, Is.EqualTo(RespType.BulkString));
        Assert.That(doctor.Text, Does.StartWith("Hi Sam").Or.StartWith("Sam, I detected"));
        var malloc = c.Execute("MEMORY", "MALLOC-STATS");
        Assert.That(malloc.Text, Does.Contain(".NET GC statistics").And.Contain("heap size"));
        int gen2 = GC.CollectionCount(2);
        RespAssert.Simple(c.Execute("MEMORY", "PURGE"), "OK");
        Assert.That(GC.CollectionCount(2), Is.GreaterThan(gen2), "a full collection ran");
    }
}
