// SegmentedFileDevice: the log on disk as fixed-size segment files "<dir>/<name>.<segment>".
// Invariants:
//  - Segment size is a multiple of the page size, so a page (and a record) never spans two files.
//  - Files are opened lazily and kept open; a truncated segment's file is closed and deleted, and later writes to it
//    are dropped.
//  - I/O uses RandomAccess: no caller thread blocks on the disk. Reads go to DiskReaders' own threads when given (many
//    in flight without the .NET thread pool), else to RandomAccess.ReadAsync.
//  - Unbuffered (O_DIRECT) where the OS and file system allow it: writes must then be whole sectors from
//    sector-aligned memory (the log writes whole pages from aligned frames); reads of any range go through an
//    aligned bounce buffer. Where O_DIRECT is refused the segment is opened buffered (IsUnbuffered says which).
using System.Collections.Concurrent;
using Microsoft.Win32.SafeHandles;

namespace Garnet.storage.Devices;

public sealed class SegmentedFileDevice : IStorageDevice
{
    private readonly string _directory;
    private readonly string _name;
    private readonly int _segmentBits;
    private readonly ConcurrentDictionary<long, Segment> _segments = new();
    private bool _unbuffered;
    private readonly DiskReaders? _readers;

    private sealed record Segment(SafeFileHandle Handle, bool Direct);

    public const int DirectAlignment = 4096;
    private readonly object _openLock = new();
    private long _truncatedBelowSegment;

    public SegmentedFileDevice(string directory, string name = "log", int segmentBits = 30, bool unbuffered = false, DiskReaders? readers = null)
    {
        _readers = readers;
        _unbuffered = unbuffered;
        if (segmentBits < 12 || segmentBits > 40) throw new ArgumentOutOfRangeException(nameof(segmentBits));
        _directory = directory;
        _name = name;
        _segmentBits = segmentBits;
        Directory.CreateDirectory(directory);
    }

    public bool Persistent => true;
    public int SectorSize => DirectAlignment;

    /// <summary>True while segments are opened unbuffered (false when asked not to, or when the OS refused it).</summary>
    public bool IsUnbuffered => Volatile.Read(ref _unbuffered);
    public long SegmentSize => 1L << _segmentBits;
    public int SegmentBits => _segmentBits;

    private string PathOf(long segment) => Path.Combine(_directory, $"{_name}.{segment}");

    private Segment Handle(long segment)
    {
        if (_segments.TryGetValue(segment, out var h)) return h;
        lock (_openLock)
        {
            if (_segments.TryGetValue(segment, out h)) return h;
            SafeFileHandle? direct = _unbuffered ? DirectFile.TryOpen(PathOf(segment)) : null;
            if (_unbuffered && direct is null) Volatile.Write(ref _unbuffered, false); // refused here: buffered from now on
            h = direct is not null
                ? new Segment(direct, true)
                : new Segment(File.OpenHandle(PathOf(segment), FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.ReadWrite | FileShare.Delete, FileOptions.Asynchronous), false);
            _segments[segment] = h;
            return h;
        }
    }

    public async ValueTask WriteAsync(long address, ReadOnlyMemory<byte> data)
    {
        long segment = address >> _segmentBits;
        long offset = address & (SegmentSize - 1);
        if (offset + data.Length > SegmentSize) throw new ArgumentException("write spans a segment boundary");
        // A write that arrives after its segment was truncated (a page flush that was under way when KVStore.Clear dropped
        // the log) is dropped: its records are unreachable, and opening the segment again would leave a file behind.
        if (segment < Interlocked.Read(ref _truncatedBelowSegment)) return;
        var h = Handle(segment);
        if (h.Direct && !DirectIo.IsAligned(data, offset))
            throw new ArgumentException($"unbuffered write of {data.Length} bytes at {offset} is not sector-aligned");
        await RandomAccess.WriteAsync(h.Handle, data, offset).ConfigureAwait(false);
    }

    // Pooled state machine: one disk read per GET of a key on disk would otherwise allocate one (awaited once by every caller).
    [System.Runtime.CompilerServices.AsyncMethodBuilder(typeof(System.Runtime.CompilerServices.PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<int> ReadAsync(long address, Memory<byte> buffer, bool shortContinuation = false)
    {
        if (!TryLocate(address, buffer.Length, out var h, out long offset, out int length, out long start, out int span)) return 0;
        if (!h.Direct) return await Read(h.Handle, buffer.Slice(0, length), offset, shortContinuation).ConfigureAwait(false);
        // Unbuffered: read the enclosing aligned range into aligned memory, then copy the part asked for.
        using var bounce = new NativeBuffer(span, DirectAlignment);
        int n = await Read(h.Handle, bounce.Memory, start, shortContinuation).ConfigureAwait(false);
        int skip = (int)(offset - start);
        int got = Math.Clamp(n - skip, 0, length);
        bounce.Memory.Span.Slice(skip, got).CopyTo(buffer.Span);
        return got;
    }

    public void StartRead(long address, int length, BufferedDeviceRead read)
    {
        if (!TryLocate(address, length, out var h, out long offset, out length, out long start, out int span))
        {
            read.CompleteEmpty();
            return;
        }
        // Unbuffered: the enclosing aligned range, straight into the read's aligned buffer (no bounce copy).
        read.Reserve(span);
        read.Handle = h.Handle;
        read.FileOffset = start;
        read.IoLength = span;
        read.Skip = (int)(offset - start);
        read.Wanted = length;
        if (_readers is not null) _readers.StartRecordRead(read);
        else ThreadPool.UnsafeQueueUserWorkItem(static r =>
        {
            int n;
            try { n = RandomAccess.Read(r.Handle, r.IoSpan, r.FileOffset); }
            catch (Exception ex) { r.Finish(0, ex); return; }
            r.Finish(n, null);
        }, (DeviceRead)read, preferLocal: false);
    }

    /// <summary>Where a read of wanted bytes at address goes: its segment, the part asked for within it (offset, length:
    /// never past the segment's end) and the range the device reads (start, span: the enclosing aligned range on an
    /// unbuffered segment, else the part itself). False when nothing is stored there (truncated, or no file).</summary>
    private bool TryLocate(long address, int wanted, out Segment h, out long offset, out int length, out long start, out int span)
    {
        long segment = address >> _segmentBits;
        offset = address & (SegmentSize - 1);
        length = (int)Math.Min(wanted, SegmentSize - offset);
        if (segment < Interlocked.Read(ref _truncatedBelowSegment) || (!_segments.ContainsKey(segment) && !File.Exists(PathOf(segment))))
        {
            h = null!;
            start = span = 0;
            return false;
        }
        h = Handle(segment);
        start = h.Direct ? offset & ~(long)(DirectAlignment - 1) : offset;
        span = h.Direct ? (int)(((offset + length + DirectAlignment - 1) & ~(long)(DirectAlignment - 1)) - start) : length;
        return true;
    }

    private ValueTask<int> Read(SafeFileHandle handle, Memory<byte> buffer, long offset, bool shortContinuation) =>
        _readers is not null ? new ValueTask<int>(_readers.ReadAsync(handle, buffer, offset, shortContinuation)) : RandomAccess.ReadAsync(handle, buffer, offset);

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
            if (_segments.TryRemove(s, out var h)) h.Handle.Dispose();
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
        foreach (var h in _segments.Values) h.Handle.Dispose();
        _segments.Clear();
    }
}

internal static unsafe class DirectIo
{
    /// <summary>True when the buffer's address, its length and the file offset are all sector multiples.</summary>
    public static bool IsAligned(ReadOnlyMemory<byte> data, long offset)
    {
        const int a = SegmentedFileDevice.DirectAlignment;
        if (data.Length % a != 0 || offset % a != 0) return false;
        using var pin = data.Pin();
        return (nint)pin.Pointer % a == 0;
    }
}
