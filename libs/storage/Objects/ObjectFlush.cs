// ObjectFlush: before a page is written, every object of its live object records is serialized, appended to the
// object log, and the record is told where its bytes went (address and length in its value).
// The page is immutable here (below SafeReadOnlyAddress) and cannot be evicted before its flush completes.
// Invariants:
//  - The page's objects take one contiguous range of the object log, in record order.
//  - Large objects are not copied twice: an object whose serializer hands out its serialized bytes (TryGetSerializedMemory)
//    is written from that array, and one serialized into more than LargePiece bytes is written from its own buffer.
//    Only small objects are gathered into one shared buffer.
using System.Buffers;
using Garnet.storage.Log;
using Garnet.storage.Store;

namespace Garnet.storage.Objects;

internal static class ObjectFlush
{
    public static async ValueTask SerializePageAsync(KVStore store, long page)
    {
        var flush = ObjectFlushScan.Serialize(store, page);
        if (flush.Placed.Count == 0) return;
        var objectLog = store.ObjectLog!;
        long at = store.AllocateObjectLog(page, flush.TotalBytes);
        ObjectFlushScan.Locate(store, flush.Placed, at);
        foreach (var piece in flush.Pieces())
        {
            await objectLog.WriteAsync(at, piece).ConfigureAwait(false);
            at += piece.Length;
        }
    }
}

/// <summary>A page's serialized objects: where each went (offset from the page's start in the object log) and the bytes.</summary>
internal sealed class PageObjects
{
    /// <summary>Serialized objects above this size are written from their own buffer rather than copied together.</summary>
    public const int LargePiece = 64 << 10;

    public readonly List<(long address, long offset, int length)> Placed = new();
    public readonly ArrayBufferWriter<byte> Small = new();
    private readonly List<(ReadOnlyMemory<byte> external, int smallStart, int smallLength)> _pieces = new();
    public long TotalBytes { get; private set; }

    public void AddSmall(long address, ReadOnlySpan<byte> bytes)
    {
        int start = Small.WrittenCount;
        Small.Write(bytes);
        if (_pieces.Count > 0 && _pieces[^1].external.IsEmpty && _pieces[^1].smallStart + _pieces[^1].smallLength == start)
            _pieces[^1] = (default, _pieces[^1].smallStart, _pieces[^1].smallLength + bytes.Length);
        else _pieces.Add((default, start, bytes.Length));
        Placed.Add((address, TotalBytes, bytes.Length));
        TotalBytes += bytes.Length;
    }

    public void AddExternal(long address, ReadOnlyMemory<byte> bytes)
    {
        if (bytes.IsEmpty) { AddSmall(address, default); return; }
        _pieces.Add((bytes, 0, 0));
        Placed.Add((address, TotalBytes, bytes.Length));
        TotalBytes += bytes.Length;
    }

    /// <summary>The bytes to write, in order.</summary>
    public IEnumerable<ReadOnlyMemory<byte>> Pieces()
    {
        foreach (var (external, start, length) in _pieces)
            yield return external.IsEmpty ? Small.WrittenMemory.Slice(start, length) : external;
    }
}

internal static unsafe class ObjectFlushScan
{
    /// <summary>Serializes the page's objects.</summary>
    public static PageObjects Serialize(KVStore store, long page)
    {
        var log = store.Log;
        var result = new PageObjects();
        var serializer = store.Objects.Enabled ? store.Objects.Serializer : null;
        ArrayBufferWriter<byte>? scratch = null;
        long address = Math.Max(log.PageStart(page), HybridLog.FirstValidAddress);
        long end = log.PageStart(page + 1);
        int frame = log.FrameOf(log.PageStart(page));
        while (end - address >= RecordLayout.HeaderSize)
        {
            byte* r = log.GetPhysical(address);
            if (!RecordLayout.IsPresent(r)) break;
            int size = RecordLayout.TotalSize(r);
            ulong info = Volatile.Read(ref RecordLayout.Info(r));
            if ((info & (RecordInfo.ObjectValue | RecordInfo.Invalid)) == RecordInfo.ObjectValue)
            {
                object? value = (info & RecordInfo.Tombstone) == 0 ? store.Objects.Get(frame, RecordLayout.ObjectSlot(r)) : null;
                if (value is null) RecordLayout.SetObjectDiskLocation(r, 0, -1);
                else if (serializer!.TryGetSerializedMemory(value, out var serialized)) result.AddExternal(address, serialized);
                else
                {
                    // Into a scratch buffer first: a serializer that throws loses only its own object (the record then
                    // reads back as "flushed without its object"), not the page's flush and with it the whole log.
                    scratch ??= new ArrayBufferWriter<byte>();
                    scratch.ResetWrittenCount();
                    try { serializer.Serialize(value, scratch); }
                    catch
                    {
                        store.Objects.NoteSerializeFailure();
                        RecordLayout.SetObjectDiskLocation(r, 0, -1);
                        address += size;
                        continue;
                    }
                    if (scratch.WrittenCount > PageObjects.LargePiece)
                    {
                        result.AddExternal(address, scratch.WrittenMemory);
                        scratch = null; // that buffer is now the piece
                    }
                    else result.AddSmall(address, scratch.WrittenSpan);
                }
            }
            address += size;
        }
        return result;
    }

    public static void Locate(KVStore store, List<(long address, long offset, int length)> placed, long baseAddress)
    {
        foreach (var (address, offset, length) in placed)
            RecordLayout.SetObjectDiskLocation(store.Log.GetPhysical(address), baseAddress + offset, length);
    }
}
