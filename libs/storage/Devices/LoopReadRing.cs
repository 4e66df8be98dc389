// LoopReadRing: an io_uring that one network event loop owns and drives itself. The store's record reads started by the
// thread holding that loop go into it; the loop hands them to the kernel once per round, just before it waits for its
// sockets, and the kernel's completions end that same wait (an eventfd registered with the ring sits in the loop's
// epoll set), after which the loop reaps them. Against the shared ring (UringReader) this saves two thread wakes per
// batch of reads: the loop's eventfd write to the ring thread, and the ring thread's write back to the loop.
// Invariants:
//  - Only the thread holding the owning loop uses it: Attach makes it that thread's Current, Detach clears it before
//    the loop changes hands, so Start, Submit, Poll and Pump never run on two threads at once.
//  - At most Depth reads are in flight; Start refuses more (the caller sends the read to the shared ring instead).
//  - A read's IoDone runs inside Poll or Pump on the holder's thread. Only the store's pending record reads come here
//    (DiskReaders.StartRecordRead), whose completion marks the op done and posts its session back to its loop.
//  - Each read pins its buffer and file handle from Start to its completion; Dispose waits (bounded) for reads in flight.
using System.Runtime.InteropServices;

namespace Garnet.storage.Devices;

public sealed unsafe class LoopReadRing : IDisposable
{
    [ThreadStatic] private static LoopReadRing? t_current;

    private readonly IoUring _ring;
    private readonly DeviceRead?[] _inFlight;   // by slot
    private readonly DiskReaders?[] _countedBy; // whose INFO counts the read, by slot
    private readonly Stack<int> _freeSlots = new();
    private readonly int _depth;
    private int _count;
    private bool _disposed;

    private LoopReadRing(IoUring ring, int depth, int eventFd)
    {
        _ring = ring;
        _depth = depth;
        EventFd = eventFd;
        _inFlight = new DeviceRead?[depth];
        _countedBy = new DiskReaders?[depth];
        for (int i = depth - 1; i >= 0; i--) _freeSlots.Push(i);
    }

    /// <summary>A ring for up to depth reads in flight, or null (with the reason) where io_uring or its eventfd
    /// registration is unavailable.</summary>
    public static LoopReadRing? TryCreate(int depth, out string? why)
    {
        depth = Math.Clamp(depth, 1, 1024);
        var ring = IoUring.TryCreate((uint)Math.Max(8, depth), out why, singleIssuer: false);
        if (ring is null) return null;
        if (ring.CqEntries < depth) { ring.Dispose(); why = "io_uring too small"; return null; }
        int efd = IoUring.CreateEventFd();
        if (efd < 0) { ring.Dispose(); why = $"eventfd failed (errno {Marshal.GetLastPInvokeError()})"; return null; }
        if (!ring.TryRegisterEventFd(efd))
        {
            why = $"io_uring eventfd registration failed (errno {Marshal.GetLastPInvokeError()})";
            ring.Dispose();
            IoUring.CloseFd(efd);
            return null;
        }
        return new LoopReadRing(ring, depth, efd);
    }

    /// <summary>The ring of the loop the calling thread holds, if any.</summary>
    public static LoopReadRing? Current => t_current;

    /// <summary>Readable whenever the kernel has posted a completion (for an edge-triggered epoll registration).</summary>
    public int EventFd { get; }

    /// <summary>Reads in flight (started, not yet reaped).</summary>
    public int InFlight => _count;

    /// <summary>The calling thread now holds the owning loop.</summary>
    public void Attach() => t_current = this;

    /// <summary>The calling thread no longer holds it.</summary>
    public void Detach()
    {
        if (t_current == this) t_current = null;
    }

    /// <summary>Queues r (its handle, offset and length set) for the next Submit; false when the ring is full or closed
    /// (nothing was started: the caller reads it elsewhere). countedBy counts the read when it completes.</summary>
    internal bool TryStart(DeviceRead r, DiskReaders countedBy)
    {
        if (_disposed || _count >= _depth) return false;
        int fd;
        try { fd = r.Pin(); }
        catch
        {
            r.Unpin();
            return false;
        }
        int slot = _freeSlots.Pop();
        _inFlight[slot] = r;
        _countedBy[slot] = countedBy;
        _count++;
        _ring.PrepareRead(fd, r.IoPointer, (uint)r.IoLength, r.FileOffset, (ulong)slot);
        return true;
    }

    /// <summary>Hands the reads queued since the last call to the kernel (no wait). False when some could not be handed
    /// over now (an interrupted call): the loop must not block in its wait then.</summary>
    public bool Submit()
    {
        if (_ring.Unsubmitted == 0) return true;
        try { _ring.Submit(wait: false); }
        catch (Exception ex) { FailAll(ex); return true; }
        return _ring.Unsubmitted == 0;
    }

    /// <summary>Whether completions wait to be reaped (a memory read).</summary>
    public bool HasCompletions => _ring.HasCompletions;

    /// <summary>Completes every read the kernel has finished, on the calling thread; how many.</summary>
    public int Poll()
    {
        int n = 0;
        while (_ring.TryReap(out ulong tag, out int result))
        {
            Complete((int)tag, result);
            n++;
        }
        return n;
    }

    /// <summary>For a holder that must wait for a read synchronously: submits, blocks until at least one read of this ring
    /// completes, and completes it. False (at once) when none is in flight here.</summary>
    public bool Pump()
    {
        if (_count == 0) return false;
        try
        {
            while (!_ring.Submit(wait: true)) { } // interrupted: nothing lost, call again
        }
        catch (Exception ex) { FailAll(ex); return true; }
        Poll();
        return true;
    }

    private void Complete(int slot, int result)
    {
        var r = _inFlight[slot]!;
        var counter = _countedBy[slot];
        _inFlight[slot] = null;
        _countedBy[slot] = null;
        _freeSlots.Push(slot);
        _count--;
        r.Unpin();
        if (result >= 0)
        {
            counter?.CountLoopRingRead(result);
            r.Finish(result, null);
        }
        else r.Finish(0, new IOException($"read of {r.IoLength} bytes at {r.FileOffset} failed: {Marshal.GetPInvokeErrorMessage(-result)}"));
    }

    /// <summary>The ring itself failed (io_uring_enter refused, not interrupted): every read in flight fails, as
    /// UringReader does, and later reads go to the shared ring.</summary>
    private void FailAll(Exception ex)
    {
        _disposed = true;
        for (int i = 0; i < _inFlight.Length; i++)
            if (_inFlight[i] is { } r)
            {
                _inFlight[i] = null;
                _countedBy[i] = null;
                _count--;
                r.Finish(0, ex);
            }
    }

    /// <summary>Waits (up to 5 s) for the reads in flight to complete, then closes the ring. Called by the loop's owner
    /// with the loop held (no other thread uses the ring then).</summary>
    public void Dispose()
    {
        _disposed = true;
        long deadline = Environment.TickCount64 + 5000;
        while (_count > 0 && Environment.TickCount64 < deadline)
        {
            Poll();
            if (_count > 0) Thread.Sleep(1);
            Submit();
        }
        Release();
    }

    private bool _released;

    private void Release()
    {
        if (_released) return;
        _released = true;
        if (t_current == this) t_current = null;
        _ring.Dispose();
        IoUring.CloseFd(EventFd);
    }
}
