// SegmentedFileDevice: the log on disk as fixed-size segment files "<dir>/<name>.<segment>".
// Invariants:
//  - Segment size is a multiple of the page size, so a page (and a record) never spans two files.
//  - Files are opened lazily and kept open; a truncated segment's file is closed and deleted.
//  - I/O uses RandomAccess on async handles: no thread blocks on the disk.
// Not yet: O_DIRECT (unbuffered) I/O; the OS page cache is used.
using System.Collections.Concurrent;
using Microsoft.Win32.SafeHandles;

namespace Garnet.storage.Devices;

public sealed class SegmentedFileDevice : IStorageDevice
{
    private readonly string _directory;
    private readonly string _name;
    private readonly int _segmentBits;
    private readonly ConcurrentDictionary<long, SafeFileHandle> _segments = new();
    private readonly object _openLock = new();
    private long _truncatedBelowSegment;

    public SegmentedFileDevice(string directory, string name = "log", int segmentBits = 30)
    {
        if (segmentBits < 12 || segmentBits > 40) throw new ArgumentOutOfRangeException(nameof(segmentBits));
        _directory = directory;
        _name = name;
        _segmentBits = segmentBits;
        Directory.CreateDirectory(directory);
    }

    public bool Persistent => true;
    public int SectorSize => 4096;
    public long SegmentSize => 1L << _segmentBits;
    public int SegmentBits => _segmentBits;

    private string PathOf(long segment) => Path.Combine(_directory, $"{_name}.{segment}");

    private SafeFileHandle Handle(long segment)
    {
        if (_segments.TryGetValue(segment, out var h)) return h;
        lock (_openLock)
        {
            if (_segments.TryGetValue(segment, out h)) return h;
            h = File.OpenHandle(PathOf(segment), FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.ReadWrite | FileShare.Delete, FileOptions.Asynchronous);
            _segments[segment] = h;
            return h;
        }
    }

    public async ValueTask WriteAsync(long address, ReadOnlyMemory<byte> data)
    {
        long segment = address >> _segmentBits;
        long offset = address & (SegmentSize - 1);
        if (offset + data.Length > SegmentSize) throw new ArgumentException("write spans a segment boundary");
        await RandomAccess.WriteAsync(Handle(segment), data, offset).ConfigureAwait(false);
    }

    public async ValueTask<int> ReadAsync(long address, Memory<byte> buffer)
    {
        long segment = address >> _segmentBits;
        if (segment < Interlocked.Read(ref _truncatedBelowSegment)) return 0;
        long offset = address & (SegmentSize - 1);
        int length = (int)Math.Min(buffer.Length, SegmentSize - offset);
        if (!_segments.ContainsKey(segment) && !File.Exists(PathOf(segment))) return 0;
        return await RandomAccess.ReadAsync(Handle(segment), buffer.Slice(0, length), offset).ConfigureAwait(false);
    }

    public void TruncateBelow(long address)
    {
        long below = address >> _segmentBits;
        long from;
        lock (_openLock)
        {
            from = _truncatedBelowSegment;
            if (below <= from) return;
            _truncatedBelowSegment = below;
        }
        for (long s = from; s < below; s++)
        {
            if (_segments.TryRemove(s, out var h)) h.Dispose();
            try { File.Delete(PathOf(s)); } catch (IOException) { }
        }
    }

    public long SizeOnDisk
    {
        get
        {
            long total = 0;
            foreach (var f in Directory.EnumerateFiles(_directory, _name + ".*"))
                try { total += new FileInfo(f).Length; } catch (IOException) { }
            return total;
        }
    }

    public void Dispose()
    {
        foreach (var h in _segments.Values) h.Dispose();
        _segments.Clear();
    }
}
