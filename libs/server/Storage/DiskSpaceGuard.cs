// DiskSpaceGuard: refuses writes (MISCONF) while the file system of the data directory has less free space than
// --min-free-disk, before the log, the object log, the stream spill file, the AOF or a checkpoint run out of it. Reads go
// on; it recovers by itself once space returns. A write that already failed is handled where it fails (the device's
// DeviceFailing, the AOF's LastWriteOk); this guard keeps the disk from getting there.
// Invariants:
//  - Checked every second by the server's cron (and once at start): a statvfs, never on a request's path.
//  - Refusing flips only when the state changes, and each change is logged once (not once per refused command).
//  - MinFreeDisk 0 (bytes and percent) turns the guard off.
using Microsoft.Extensions.Logging;

namespace Garnet.server.Storage;

public sealed class DiskSpaceGuard : IDisposable
{
    private readonly string _dir;
    private readonly long _minBytes;
    private readonly double _minPercent;
    private readonly ILogger _logger;
    private readonly IDisposable? _check;
    private volatile bool _refusing;

    public DiskSpaceGuard(string dir, long minBytes, double minPercent, Util.ServerCron cron, ILogger logger)
    {
        _dir = dir;
        _minBytes = minBytes;
        _minPercent = minPercent;
        _logger = logger;
        if (minBytes <= 0 && minPercent <= 0) return;
        Check();
        _check = cron.Every("disk space", TimeSpan.FromSeconds(1), Check);
    }

    /// <summary>True while writes are refused for lack of free space.</summary>
    public bool Refusing => _refusing;
    /// <summary>Free bytes at the last check (-1: never measured).</summary>
    public long LastFreeBytes { get; private set; } = -1;
    /// <summary>The free space writes need, in bytes, at the last check.</summary>
    public long ThresholdBytes { get; private set; }

    /// <summary>Measures the file system once; public so a caller that just freed space can look again at once.</summary>
    public void Check()
    {
        long free, total;
        try
        {
            var drive = new DriveInfo(_dir);
            free = drive.AvailableFreeSpace;
            total = drive.TotalSize;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or ArgumentException)
        {
            return; // cannot measure: leave the state as it is (a real write failure is still caught where it fails: DeviceFailing, LastWriteOk)
        }
        long threshold = Math.Max(_minBytes, (long)(total * _minPercent / 100));
        LastFreeBytes = free;
        ThresholdBytes = threshold;
        bool refuse = free < threshold;
        if (refuse == _refusing) return;
        _refusing = refuse;
        if (refuse) _logger.LogError("The file system of {Dir} has {Free} bytes free, less than min-free-disk ({Threshold} bytes): writes are refused (MISCONF) until space returns; reads go on", _dir, free, threshold);
        else _logger.LogWarning("The file system of {Dir} has {Free} bytes free again (min-free-disk {Threshold} bytes): writes are accepted again", _dir, free, threshold);
    }

    /// <summary>The MISCONF reply while refusing.</summary>
    public string Refusal() =>
        $"MISCONF The disk of the data directory is nearly full ({LastFreeBytes} bytes free, min-free-disk is {ThresholdBytes} bytes): writes are refused until space returns; see the server log";

    public void Dispose() => _check?.Dispose();
}
