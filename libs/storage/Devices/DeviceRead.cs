// DeviceRead: a read of the log device that completes through a callback instead of a Task, into memory the read owns,
// so an object reused for read after read costs no allocation per read (the store's pending operations: one per GET of
// a key on disk). Task-based reads (DiskReaders.ReadAsync) are the same thing with a TaskCompletionSource behind them.
// Invariants:
//  - At most one read in flight per object: its owner starts the next only after IoDone ran for the last one.
//  - IoDone runs on a reader thread (the io_uring thread or a reader thread), possibly before the call that started the
//    read returns; what it runs must be short and must never block.
//  - The engine reads IoLength bytes at FileOffset of Handle into IoSpan (or IoPointer, valid from Pin to Unpin).
using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace Garnet.storage.Devices;

public abstract unsafe class DeviceRead
{
    internal SafeFileHandle Handle = null!;
    internal long FileOffset;
    internal int IoLength;
    private bool _handleHeld;

    /// <summary>Where the bytes go, for a blocking read.</summary>
    internal abstract Span<byte> IoSpan { get; }

    /// <summary>Where the bytes go, for the ring: valid between Pin and Unpin.</summary>
    internal abstract byte* IoPointer { get; }

    /// <summary>The read finished: n bytes were read (fewer than IoLength at the end of a file), or it failed.</summary>
    internal abstract void IoDone(int n, Exception? error);

    /// <summary>How reader threads and rings complete a read: IoDone, with whatever it throws contained
    /// (StorageFaults.Complete) so that the reader thread, and the process, go on. A failure before IoDone ran (an
    /// injected fault) fails the read instead, so its request gets an error reply; one inside IoDone is only reported
    /// here, so an IoDone that answers a request contains its own (the store's op reads: PendingRead).</summary>
    internal void Finish(int n, Exception? error) =>
        Util.StorageFaults.Complete("disk-read-completion", "a disk read's completion", (read: this, n, error),
            static s => s.read.IoDone(s.n, s.error), static (s, ex) => s.read.IoDone(0, ex));

    /// <summary>For the ring: keeps the file handle (and the memory, in subclasses) alive until Unpin; the fd to read.</summary>
    internal virtual int Pin()
    {
        Handle.DangerousAddRef(ref _handleHeld);
        return (int)Handle.DangerousGetHandle();
    }

    internal virtual void Unpin()
    {
        if (!_handleHeld) return;
        _handleHeld = false;
        Handle.DangerousRelease();
    }
}

/// <summary>A reusable read into an aligned native buffer of its own (grown as reads need; unbuffered I/O can use it as
/// is; one of up to 8 KiB comes from ReadBufferPool and goes back to it). The device places the bytes asked for at
/// Data; Completed gets how many of them were read. The owner gives the buffer back (FreeBuffer) before it drops the
/// object: there is no finalizer, so reads cost the GC nothing.</summary>
public abstract unsafe class BufferedDeviceRead : DeviceRead
{
    private const int Alignment = 4096;
    private byte* _buffer;
    private int _capacity;

    /// <summary>Where the device put the start of the range asked for (after its alignment).</summary>
    internal int Skip;
    /// <summary>Bytes of the range asked for.</summary>
    internal int Wanted;

    public byte* Data => _buffer + Skip;

    internal override Span<byte> IoSpan => new(_buffer, IoLength);
    internal override byte* IoPointer => _buffer;

    /// <summary>Makes the buffer at least bytes long (its contents are not kept).</summary>
    internal void Reserve(int bytes)
    {
        if (bytes <= _capacity) return;
        FreeBuffer();
        if (bytes <= ReadBufferPool.BufferSize)
        {
            _buffer = ReadBufferPool.Rent();
            _capacity = ReadBufferPool.BufferSize;
            return;
        }
        int size = (bytes + Alignment - 1) & ~(Alignment - 1);
        _buffer = (byte*)NativeMemory.AlignedAlloc((nuint)size, Alignment);
        _capacity = size;
    }

    /// <summary>Bytes the buffer holds now (kept between reads).</summary>
    public int Capacity => _capacity;

    /// <summary>Gives the buffer back (a later read takes a new one).</summary>
    public void FreeBuffer()
    {
        if (_buffer == null) return;
        if (_capacity == ReadBufferPool.BufferSize) ReadBufferPool.Return(_buffer);
        else NativeMemory.AlignedFree(_buffer);
        _buffer = null;
        _capacity = 0;
    }

    /// <summary>Nothing is stored where the read was asked for: it completes at once with no bytes.</summary>
    internal void CompleteEmpty()
    {
        Skip = 0;
        Wanted = 0;
        IoDone(0, null);
    }

    internal sealed override void IoDone(int n, Exception? error) =>
        Completed(error is null ? Math.Clamp(n - Skip, 0, Wanted) : 0, error);

    /// <summary>The read is done: bytes of the range asked for are at Data (0: nothing stored there), or error.</summary>
    protected abstract void Completed(int bytes, Exception? error);
}
