// LATENCY LATEST / HISTORY / RESET / GRAPH / DOCTOR / HISTOGRAM / HELP (Metrics/LatencyMonitor for events,
// Metrics/CommandStatistics for the per-command histograms), with Redis 7.2's replies and errors.
using System.Text;
using Garnet.server.Metrics;
using Garnet.server.Session;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Commands;

public static class LatencyCommands
{
    public static void Latest(CommandContext s)
    {
        var latest = s.Server.Latency.Latest();
        var w = s.Writer;
        w.WriteArrayHeader(latest.Count);
        foreach (var (evt, time, ms, max) in latest)
        {
            w.WriteArrayHeader(4);
            w.WriteBulkString(evt);
            w.WriteInteger(time);
            w.WriteInteger(ms);
            w.WriteInteger(max);
        }
    }

    public static void History(CommandContext s)
    {
        var h = s.Server.Latency.History(s.ArgString(2));
        var w = s.Writer;
        if (h is not { } history) { w.WriteArrayHeader(0); return; }
        w.WriteArrayHeader(history.Samples.Count);
        foreach (var x in history.Samples)
        {
            w.WriteArrayHeader(2);
            w.WriteInteger(x.UnixSeconds);
            w.WriteInteger(x.Ms);
        }
    }

    public static void Reset(CommandContext s)
    {
        var events = new List<string>();
        for (int i = 2; i < s.Argc; i++) events.Add(s.ArgString(i));
        s.Writer.WriteInteger(s.Server.Latency.Reset(events));
    }

    /// <summary>LATENCY HISTOGRAM [command ...]: per command, its calls and the cumulative counts of power-of-two µs ranges.</summary>
    public static void Histogram(CommandContext s)
    {
        var server = s.Server;
        var chosen = new List<CommandDefinition>();
        if (s.Argc == 2) chosen.AddRange(server.Commands.AllWithSubcommands);
        else
            for (int i = 2; i < s.Argc; i++)
            {
                var name = s.ArgString(i);
                int bar = name.IndexOf('|');
                var cmd = server.Commands.Find(bar < 0 ? name : name[..bar]);
                if (cmd is null) continue;
                if (bar >= 0)
                {
                    var sub = cmd.FindSubcommand(Encoding.UTF8.GetBytes(name[(bar + 1)..]));
                    if (sub is not null) chosen.Add(sub);
                    continue;
                }
                chosen.Add(cmd);
                chosen.AddRange(cmd.Subcommands);
            }
        var rows = new List<(string name, long[] h)>();
        foreach (var c in chosen)
            if (server.CommandStats.Histogram(c.Id) is { } h && !rows.Any(r => r.name == c.FullName)) rows.Add((c.FullName, h));
        var w = s.Writer;
        w.WriteMapHeader(rows.Count);
        foreach (var (name, h) in rows)
        {
            w.WriteBulkString(name);
            w.WriteMapHeader(2);
            w.WriteBulkString("calls");
            w.WriteInteger(LatencyHistogram.Total(h));
            w.WriteBulkString("histogram_usec");
            var cdf = LatencyHistogram.PowerOfTwoCdf(h);
            w.WriteMapHeader(cdf.Count);
            foreach (var (usec, cumulative) in cdf)
            {
                w.WriteInteger(usec);
                w.WriteInteger(cumulative);
            }
        }
    }

    /// <summary>LATENCY GRAPH event: Redis's sparkline (Metrics/LatencySparkline), ages by the monitor's clock.</summary>
    public static void Graph(CommandContext s)
    {
        string evt = s.ArgString(2);
        var monitor = s.Server.Latency;
        if (monitor.History(evt) is not { } h || h.Samples.Count == 0)
        {
            s.WriteError($"ERR No samples available for event '{evt}'");
            return;
        }
        s.Writer.WriteVerbatimString(LatencySparkline.Render(evt, h.Samples, h.Max, monitor.UnixSeconds()));
    }

    public static void Doctor(CommandContext s) => s.Writer.WriteVerbatimString(Report(s.Server));

    /// <summary>LATENCY DOCTOR's report (Metrics/LatencyReport) for the events recorded so far and the settings now.</summary>
    internal static string Report(RespServer server)
    {
        var monitor = server.Latency;
        var events = new List<(string, IReadOnlyList<LatencyMonitor.Sample>, long)>();
        foreach (var evt in monitor.Events())
            if (monitor.History(evt) is { } h) events.Add((evt, h.Samples, h.Max));
        var settings = new LatencyReportSettings(monitor.ThresholdMs, server.SlowLog.ThresholdUsec,
            server.Settings.AofFsync == Persistence.AofFsync.Always, Hz: 10, monitor.AnonHugePagesBytes());
        return LatencyReport.Render(events, settings, monitor.UnixSeconds());
    }

    public static void Help(CommandContext s) => HelpText.Write(s, "LATENCY",
    [
        "DOCTOR",
        "    Return a human readable latency analysis report.",
        "GRAPH <event>",
        "    Return an ASCII latency graph for the <event> class.",
        "HISTORY <event>",
        "    Return time-latency samples for the <event> class.",
        "LATEST",
        "    Return the latest latency samples for all events.",
        "RESET [<event> ...]",
        "    Reset latency data of one or more <event> classes.",
        "    (default: reset all data for all event classes)",
        "HISTOGRAM [COMMAND ...]",
        "    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
        "    If no commands are specified then all histograms are replied.",
    ]);

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>LATENCY.</summary>
    internal static CommandDefinition[] Declarations()
    {
        return
        [
            new()
            {
                Name = "latency", Arity = -2, Acl = A.Slow,
                Group = "server", Since = "2.8.13", Summary = "A container for latency diagnostics commands.",
                Complexity = "Depends on subcommand.",
                Subcommands =
                [
                    new()
                    {
                        Name = "doctor", Arity = 2, Flags = Admin | NoScript | Loading | Stale,
                        Since = "2.8.13", Summary = "Returns a human-readable latency analysis report.",
                        Tips = ["nondeterministic_output", "request_policy:all_nodes", "response_policy:special"],
                        Handler = Doctor,
                    },
                    new()
                    {
                        Name = "graph", Arity = 3, Flags = Admin | NoScript | Loading | Stale,
                        Since = "2.8.13", Summary = "Returns a latency graph for an event.",
                        Tips = ["nondeterministic_output", "request_policy:all_nodes", "response_policy:special"],
                        Handler = Graph,
                    },
                    new()
                    {
                        Name = "help", Arity = 2, Flags = Loading | Stale,
                        Since = "2.8.13", Summary = "Returns helpful text about the different subcommands.",
                        Handler = Help,
                    },
                    new()
                    {
                        Name = "histogram", Arity = -2, Flags = Admin | NoScript | Loading | Stale,
                        Since = "7.0.0", Summary = "Returns the cumulative distribution of latencies of a subset or all commands.",
                        Complexity = "O(N) where N is the number of commands with latency information being retrieved.",
                        Tips = ["nondeterministic_output", "request_policy:all_nodes", "response_policy:special"],
                        Handler = Histogram,
                    },
                    new()
                    {
                        Name = "history", Arity = 3, Flags = Admin | NoScript | Loading | Stale,
                        Since = "2.8.13", Summary = "Returns timestamp-latency samples for an event.",
                        Tips = ["nondeterministic_output", "request_policy:all_nodes", "response_policy:special"],
                        Handler = History,
                    },
                    new()
                    {
                        Name = "latest", Arity = 2, Flags = Admin | NoScript | Loading | Stale,
                        Since = "2.8.13", Summary = "Returns the latest latency samples for all events.",
                        Tips = ["nondeterministic_output", "request_policy:all_nodes", "response_policy:special"],
                        Handler = Latest,
                    },
                    new()
                    {
                        Name = "reset", Arity = -2, Flags = Admin | NoScript | Loading | Stale,
                        Since = "2.8.13", Summary = "Resets the latency data for one or more events.",
                        Tips = ["request_policy:all_nodes", "response_policy:agg_sum"],
                        Handler = Reset,
                    },
                ],
            },
        ];
    }
}
