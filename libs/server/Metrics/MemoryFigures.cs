// MemoryFigures: the memory numbers of INFO memory and MEMORY STATS, measured at one moment.
// Mapping onto Redis's names (Redis counts what its allocator hands out; here memory comes from two places):
//  - used_memory  = the store's native memory (hash index + log pages in memory) + the managed heap in use (which holds
//                   the large values, the connections' buffers and everything else);
//  - dataset      = the data: log pages in memory + large values (the object heap); overhead = used - dataset;
//  - allocator_*  = the .NET GC: allocated = heap in use, active = heap size (at least allocated), resident =
//                   committed (at least active), so allocated <= active <= resident as in Redis;
//  - used_memory_rss = resident pages of the process (/proc/self/statm), else the working set.
using System.Globalization;

namespace Garnet.server.Metrics;

public sealed class MemoryFigures
{
    public long Used { get; private init; }
    public long Rss { get; private init; }
    public long Peak { get; private init; }
    public long Startup { get; private init; }
    /// <summary>used_memory_rss when the server was built: the .NET runtime's own share.</summary>
    public long StartupRss { get; private init; }
    public long Dataset { get; private init; }
    public long Overhead => Math.Max(0, Used - Dataset);
    public long StoreIndex { get; private init; }
    public long StoreLog { get; private init; }
    public long StoreObjects { get; private init; }
    public long GcAllocated { get; private init; }
    public long GcHeapSize { get; private init; }
    public long GcCommitted { get; private init; }
    public long TotalSystem { get; private init; }
    public long ClientsNormal { get; private init; }
    public long AofBuffer { get; private init; }
    public long Keys { get; private init; }
    public long MaxMemory { get; private init; }

    public double PeakPercent => Peak == 0 ? 0 : Used * 100.0 / Peak;
    public double DatasetPercent => Used - Startup <= 0 ? 0 : Dataset * 100.0 / (Used - Startup);
    public double AllocatorFragRatio => Ratio(GcHeapSize, GcAllocated);
    public long AllocatorFragBytes => GcHeapSize - GcAllocated;
    public double AllocatorRssRatio => Ratio(GcCommitted, GcHeapSize);
    public long AllocatorRssBytes => GcCommitted - GcHeapSize;
    public double RssOverheadRatio => Ratio(Rss, GcCommitted + StoreIndex + StoreLog);
    public long RssOverheadBytes => Rss - (GcCommitted + StoreIndex + StoreLog);
    public double FragmentationRatio => Ratio(Rss, Used);
    public long FragmentationBytes => Rss - Used;

    private static double Ratio(long a, long b) => b <= 0 ? 0 : (double)a / b;

    /// <summary>used_memory now (cheap: used by the 100 ms peak sampling).</summary>
    public static long UsedMemory(RespServer server)
    {
        var store = server.Store.Store;
        return store.Index.MemoryBytes + store.Log.MemoryBytes + GC.GetTotalMemory(false);
    }

    private static readonly System.Runtime.CompilerServices.ConditionalWeakTable<RespServer, StartupFigures> s_startup = new();
    private sealed class StartupFigures { public long Used, Rss; }

    /// <summary>Makes the server's peak sampling measure used_memory (and remembers the first figure as used_memory_startup).</summary>
    public static void Attach(RespServer server)
    {
        if (server.Stats.UsedMemoryProbe is not null) return;
        s_startup.GetValue(server, _ => new StartupFigures { Used = UsedMemory(server), Rss = ResidentBytes() });
        server.Stats.UsedMemoryProbe = () => UsedMemory(server);
    }

    public static MemoryFigures Measure(RespServer server)
    {
        Attach(server);
        var store = server.Store.Store;
        var gc = GC.GetGCMemoryInfo();
        long index = store.Index.MemoryBytes, log = store.Log.MemoryBytes, objects = store.Objects.TotalBytes;
        long allocated = GC.GetTotalMemory(false);
        long used = index + log + allocated;
        server.Stats.ObservePeak(used);
        long clients = 0;
        foreach (var c in server.Clients.Snapshot()) clients += c.Connection.QueryBufferCapacity + c.Writer.Length;
        var aof = server.Aof;
        var startup = s_startup.TryGetValue(server, out var st) ? st : new StartupFigures { Used = used, Rss = ResidentBytes() };
        long active = Math.Max(allocated, gc.HeapSizeBytes), resident = Math.Max(active, gc.TotalCommittedBytes);
        long keys = 0;
        for (int db = 0; db < server.Store.Databases; db++) keys += server.Store.KeyCount(db);
        return new MemoryFigures
        {
            Used = used,
            Rss = ResidentBytes(),
            Peak = Math.Max(server.Stats.PeakMemory, used),
            Startup = startup.Used,
            StartupRss = startup.Rss,
            Dataset = log + objects,
            StoreIndex = index,
            StoreLog = log,
            StoreObjects = objects,
            GcAllocated = allocated,
            GcHeapSize = active,
            GcCommitted = resident,
            TotalSystem = TotalSystemBytes(gc),
            ClientsNormal = clients,
            AofBuffer = aof is null ? 0 : Math.Max(0, aof.AppendedLsn - aof.BytesWritten),
            Keys = keys,
            MaxMemory = server.Settings.MemoryBytes,
        };
    }

    /// <summary>Resident set size: /proc/self/statm's second field times the page size; else the working set.</summary>
    public static long ResidentBytes()
    {
        try
        {
            if (OperatingSystem.IsLinux())
            {
                var fields = File.ReadAllText("/proc/self/statm").Split(' ');
                if (fields.Length > 1 && long.TryParse(fields[1], NumberStyles.None, CultureInfo.InvariantCulture, out long pages))
                    return pages * Environment.SystemPageSize;
            }
        }
        catch (IOException) { }
        catch (UnauthorizedAccessException) { }
        return Environment.WorkingSet;
    }

    /// <summary>total_system_memory: MemTotal of /proc/meminfo, else what the GC sees as available.</summary>
    private static long TotalSystemBytes(GCMemoryInfo gc)
    {
        try
        {
            if (OperatingSystem.IsLinux())
                foreach (var line in File.ReadLines("/proc/meminfo"))
                    if (line.StartsWith("MemTotal:", StringComparison.Ordinal))
                    {
                        var kb = line["MemTotal:".Length..].Trim().Split(' ')[0];
                        if (long.TryParse(kb, NumberStyles.None, CultureInfo.InvariantCulture, out long n)) return n * 1024;
                    }
        }
        catch (IOException) { }
        catch (UnauthorizedAccessException) { }
        return gc.TotalAvailableMemoryBytes;
    }

    /// <summary>Redis's bytesToHuman: 1023B, 1.00K, 1.50M, ... (two decimals, powers of 1024).</summary>
    public static string Human(long bytes)
    {
        string[] units = ["B", "K", "M", "G", "T", "P"];
        if (bytes < 1024) return bytes.ToString(CultureInfo.InvariantCulture) + "B";
        double v = bytes;
        int u = 0;
        while (v >= 1024 && u < units.Length - 1) { v /= 1024; u++; }
        return v.ToString("0.00", CultureInfo.InvariantCulture) + units[u];
    }
}
