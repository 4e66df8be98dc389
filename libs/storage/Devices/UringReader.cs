// UringReader: the log's random reads through one io_uring, driven by one thread that submits and reaps. Callers on
// any thread queue a read and wake the ring thread only when it sleeps; the ring thread submits everything queued in
// one system call (one device notification per batch) and completes reads as they finish. Compared with a thread per
// read (DiskReaders' other mode) there are no per-read thread wakes and far fewer context switches.
// Invariants:
//  - At most Depth reads are in the kernel at once; more wait in FIFO order in _queue.
//  - A read's continuation runs on the ring thread, so only reads whose callers promise a short continuation that never
//    blocks come here (DiskReaders sends the store's pending reads; compaction, sweeps, checkpoints and iterators, which
//    may block after their await, go to reader threads).
//  - Each read pins its buffer and holds a reference on its file handle from submission to completion (DeviceRead.Pin).
//  - _sleeping is 1 only while the ring thread is (about to be) blocked with no queued work it has seen; a caller that
//    queues work and swaps it to 0 writes the eventfd, on which the ring always has a read pending.
using System.Buffers;
using System.Collections.Concurrent;
using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace Garnet.storage.Devices;

internal sealed unsafe class UringReader : IDisposable
{
    private const ulong WakeTag = ulong.MaxValue;
    private readonly ConcurrentQueue<DeviceRead> _queue = new();
    private readonly DeviceRead?[] _inFlight;           // by slot; only the ring thread touches it
    private readonly Stack<int> _freeSlots = new();  // ring thread only
    private readonly int _depth;
    private readonly Thread _thread;
    private readonly int _eventFd;
    private readonly ulong* _wakeBuffer;
    private IoUring? _ring;
    private int _sleeping;
    private volatile bool _disposed;
    private long _reads, _bytes;

    private UringReader(int depth, int eventFd)
    {
        _depth = depth;
        _eventFd = eventFd;
        _inFlight = new DeviceRead?[depth];
        for (int i = depth - 1; i >= 0; i--) _freeSlots.Push(i);
        _wakeBuffer = (ulong*)NativeMemory.Alloc(8);
        _thread = new Thread(Run, maxStackSize: 512 * 1024) { IsBackground = true, Name = "garnet-io-uring" };
    }

    /// <summary>Starts a reader, or returns null with the reason when this kernel (or platform) has no usable io_uring.</summary>
    public static UringReader? TryStart(int depth, out string? why)
    {
        why = null;
        if (!OperatingSystem.IsLinux()) { why = "io_uring needs Linux"; return null; }
        int efd = IoUring.CreateEventFd();
        if (efd < 0) { why = $"eventfd failed (errno {Marshal.GetLastPInvokeError()})"; return null; }
        var reader = new UringReader(depth, efd);
        string? error = null;
        using var ready = new ManualResetEventSlim();
        reader._thread.Start((Action<string?>)(e => { error = e; ready.Set(); }));
        ready.Wait();
        if (error is not null) { why = error; reader._thread.Join(); reader.Release(); return null; }
        return reader;
    }

    public long Reads => Interlocked.Read(ref _reads);
    public long BytesRead => Interlocked.Read(ref _bytes);

    /// <summary>Starts r (its handle, offset and length set); its IoDone must be short and must never block (see the header).</summary>
    public void Start(DeviceRead r)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        _queue.Enqueue(r);
        if (Interlocked.Exchange(ref _sleeping, 0) == 1) IoUring.SignalEventFd(_eventFd);
        if (_disposed) FailQueued(); // raced with Dispose after the ring thread drained
    }

    private void Run(object? state)
    {
        var started = (Action<string?>)state!;
        // Created here: a SINGLE_ISSUER ring belongs to the thread that creates it.
        _ring = IoUring.TryCreate((uint)Math.Max(8, _depth + 1), out string? why);
        if (_ring is null || _ring.CqEntries < _depth + 1) { started(why ?? "io_uring too small"); return; }
        started(null);
        var ring = _ring;
        int inFlight = 0;
        ring.PrepareRead(_eventFd, (byte*)_wakeBuffer, 8, 0, WakeTag);
        try
        {
            while (true)
            {
                while (inFlight < _depth && _queue.TryDequeue(out var r))
                {
                    if (Prepare(ring, r)) inFlight++;
                }
                if (_disposed && inFlight == 0) break;
                // Sleep only if nothing was queued since the drain above; a caller that sees _sleeping == 1 wakes us.
                bool wait = true;
                if (inFlight < _depth)
                {
                    Interlocked.Exchange(ref _sleeping, 1); // a full fence: the queue check below must not move above it
                    if (!_queue.IsEmpty || _disposed) { Volatile.Write(ref _sleeping, 0); wait = false; }
                }
                ring.Submit(wait);
                Volatile.Write(ref _sleeping, 0);
                while (ring.TryReap(out ulong tag, out int result))
                {
                    if (tag == WakeTag) { ring.PrepareRead(_eventFd, (byte*)_wakeBuffer, 8, 0, WakeTag); continue; }
                    inFlight--;
                    Complete((int)tag, result);
                }
            }
        }
        catch (Exception ex)
        {
            // The ring itself failed: fail what is in flight and queued; later reads fail at once.
            _disposed = true;
            for (int i = 0; i < _inFlight.Length; i++)
                if (_inFlight[i] is { } r) { _inFlight[i] = null; r.Unpin(); r.Finish(0, ex); }
        }
        FailQueued();
    }

    private bool Prepare(IoUring ring, DeviceRead r)
    {
        if (_disposed) { r.Finish(0, new ObjectDisposedException(nameof(DiskReaders))); return false; }
        int fd;
        try { fd = r.Pin(); }
        catch (Exception ex) { r.Unpin(); r.Finish(0, ex); return false; }
        int slot = _freeSlots.Pop();
        _inFlight[slot] = r;
        ring.PrepareRead(fd, r.IoPointer, (uint)r.IoLength, r.FileOffset, (ulong)slot);
        return true;
    }

    private void Complete(int slot, int result)
    {
        var r = _inFlight[slot]!;
        _inFlight[slot] = null;
        _freeSlots.Push(slot);
        r.Unpin();
        if (result >= 0)
        {
            Interlocked.Increment(ref _reads);
            Interlocked.Add(ref _bytes, result);
            r.Finish(result, null);
        }
        else r.Finish(0, new IOException($"read of {r.IoLength} bytes at {r.FileOffset} failed: {Marshal.GetPInvokeErrorMessage(-result)}"));
    }

    private void FailQueued()
    {
        while (_queue.TryDequeue(out var r)) r.Finish(0, new ObjectDisposedException(nameof(DiskReaders)));
    }

    private int _disposeCalled;

    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposeCalled, 1) != 0) return;
        _disposed = true;
        IoUring.SignalEventFd(_eventFd);
        // Reads in flight finish (device reads do); a completion that disposes its own store must not wait for itself.
        if (Thread.CurrentThread != _thread) _thread.Join(TimeSpan.FromSeconds(10));
        FailQueued();
        if (!_thread.IsAlive) Release(); // only here: a caller may still write the eventfd until the thread is gone
    }

    private int _released;

    private void Release()
    {
        if (Interlocked.Exchange(ref _released, 1) != 0) return;
        _ring?.Dispose();
        IoUring.CloseFd(_eventFd);
        NativeMemory.Free(_wakeBuffer);
    }
}
