// StreamSpillFile: where the sealed blocks of large streams go when they leave memory (docs/objects-streams.md,
// "Streams larger than memory"). One append-only file per store (`stream-blocks.spill` in --dir); a block is written
// once, when it is spilled, and from then on a StreamBlock refers to it by (offset, length).
// Invariants:
//  - Bytes once written are never changed nor reused within a run: every version of a stream (the mutable record, copies
//    in the read-only region, payloads in the object log, a checkpoint being written) may refer to them.
//  - It is a cache tier, like the log: recovery reads checkpoints and the AOF, so the file is removed at start and at
//    dispose, and needs no fsync; a crash loses nothing.
//  - Space is handed out by one atomic add, so appends from several sessions never overlap.
using Microsoft.Win32.SafeHandles;

namespace Garnet.server.Objects.Streams;

public sealed class StreamSpillFile : IDisposable
{
    public const string FileName = "stream-blocks.spill";

    private readonly SafeFileHandle _handle;
    private long _tail;
    private long _reads;
    private int _disposed;

    public StreamSpillFile(string dir)
    {
        Path = System.IO.Path.Combine(dir, FileName);
        _handle = File.OpenHandle(Path, FileMode.Create, FileAccess.ReadWrite, FileShare.Read);
    }

    public string Path { get; }
    /// <summary>Bytes written so far (the file's length).</summary>
    public long Bytes => Interlocked.Read(ref _tail);
    /// <summary>Block reads served from the file.</summary>
    public long Reads => Interlocked.Read(ref _reads);

    /// <summary>Writes bytes at a new offset and returns it; throws IOException when the disk refuses the write.</summary>
    public long Append(ReadOnlySpan<byte> bytes)
    {
        long at = Interlocked.Add(ref _tail, bytes.Length) - bytes.Length;
        RandomAccess.Write(_handle, bytes, at);
        return at;
    }

    /// <summary>The length bytes written at offset.</summary>
    public byte[] Read(long offset, int length)
    {
        var bytes = new byte[length];
        int done = 0;
        while (done < length)
        {
            int n = RandomAccess.Read(_handle, bytes.AsSpan(done), offset + done);
            if (n <= 0) throw new IOException($"stream block at {offset} ({length} bytes) is past the end of {Path}");
            done += n;
        }
        Interlocked.Increment(ref _reads);
        return bytes;
    }

    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        _handle.Dispose();
        try { File.Delete(Path); } catch (IOException) { } catch (UnauthorizedAccessException) { }
    }
}
