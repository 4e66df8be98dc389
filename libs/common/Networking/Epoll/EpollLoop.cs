// EpollLoop: serves many connections as Redis's event loop does: wait for ready sockets, run every ready connection's
// requests, then write all the replies, then wait again.
// Invariants:
//  - The loop is a role, not a thread: whichever thread holds _ownership runs its rounds, and only that thread touches
//    the loop's state and its connections' I/O and requests. Other threads reach a connection only through Post, which
//    queues it and wakes the loop through an eventfd.
//  - Replies are written after every event of an epoll_wait has been handled (FlushLater), so a batch of ready requests
//    costs one wait and the replies go out together. A connection with more work (FlushAndContinue) gets it in the next
//    round, after the others, so one deep pipeline cannot starve them.
//  - A handler about to wait long (a script that runs on, a key-lock wait) calls LoopRelease.Release: its connection
//    leaves the epoll set, the thread gives up _ownership, and a standby thread takes the loop over, so the loop's other
//    connections are served meanwhile. Reacquire asks the holder to yield at the end of its round and takes the loop back.
//  - The loop's ILoopIo (its own disk-read ring, when the server gives it one) is attached to whichever thread holds the
//    loop, gets what a round started every SubmitEvery events, after the round's events and just before the wait, and
//    its completions are reaped right after the events: its eventfd is in the epoll set, edge-triggered, so it only ends
//    the wait.
using System.Collections.Concurrent;
using Garnet.common.Util;
using Microsoft.Extensions.Logging;

namespace Garnet.common.Networking.Epoll;

internal sealed unsafe class EpollLoop : IDisposable, LoopRelease.ILoop
{
    private const int MaxEvents = 256;
    private const int SubmitEvery = 16; // events handled between two hand-overs of the round's disk reads (ILoopIo)
    private const ulong WakeToken = ulong.MaxValue, IoToken = ulong.MaxValue - 1;

    private readonly int _epfd;
    private readonly int _wakeFd;
    private readonly string _name;
    private readonly ILogger? _logger;
    private readonly ConcurrentQueue<EpollConnection> _posted = new();
    private int _wakePending;
    private volatile bool _stopping;
    // Dispose closes the eventfd and the epoll fd holding _ownership and this lock; Wake signals under this lock, and the
    // holder uses the epoll fd, only while they are open: a late Post (a disk read completing after the stop) or a thread
    // back from a long wait must never touch an fd number the process has reused.
    private readonly object _fdLock = new();
    private volatile bool _fdsClosed;

    private readonly object _ownership = new();
    private int _reclaimers;          // threads waiting in Reacquire
    private int _idleStandbys;        // threads waiting in _standbyWake
    private readonly SemaphoreSlim _standbyWake = new(0);
    private readonly List<Thread> _threads = new();

    // Slots: the epoll data of a connection is (generation << 32 | slot), so an event for a closed connection whose slot
    // was reused in the same round is recognised and dropped. Only the holder touches these.
    private EpollConnection?[] _slots = new EpollConnection?[64];
    private uint[] _generations = new uint[64];
    private readonly Stack<int> _freeSlots = new();
    private int _slotsUsed;

    private List<EpollConnection> _toFlush = new(), _toRun = new();
    // Reply buffers of connections whose replies were sent, for the next batches (holder only). A round holds up to
    // MaxEvents of them at once, more than ArrayPool.Shared keeps per core, which made every round allocate.
    private readonly Stack<byte[]> _replyBuffers = new();
    private const int MaxReplyBuffers = 2 * MaxEvents, MaxPooledReplyBuffer = 64 * 1024;
    private readonly Stack<List<EpollConnection>> _spareLists = new();
    private EpollConnection? _current; // whose handler runs now (the one a Release detaches)
    private readonly ILoopIo? _io;

    public EpollLoop(int index, ILogger? logger, ILoopIo? io = null)
    {
        _logger = logger;
        _name = "epoll-loop-" + index;
        _epfd = EpollNative.CreateEpoll();
        _wakeFd = EpollNative.CreateEventFd();
        if (!EpollNative.Control(_epfd, EpollNative.EPOLL_CTL_ADD, _wakeFd, EpollNative.EPOLLIN, WakeToken))
            throw new IOException("epoll_ctl could not add the loop's eventfd");
        if (io is not null && io.EventFd >= 0 &&
            EpollNative.Control(_epfd, EpollNative.EPOLL_CTL_ADD, io.EventFd, EpollNative.EPOLLIN | EpollNative.EPOLLET, IoToken))
            _io = io;
        else io?.Dispose();
        StartThread(standby: false);
    }

    /// <summary>The epoll fd, for the holder's epoll_ctl calls; -1 once closed.</summary>
    internal int EpollFd => _fdsClosed ? -1 : _epfd;

    /// <summary>Connections this loop serves now.</summary>
    public int Connections => Volatile.Read(ref _slotsUsed);

    private bool Holding => LoopRelease.Holder == this;

    /// <summary>Queues connection to have its posted work (OnPosted) run by the loop; any thread.</summary>
    public void Post(EpollConnection connection)
    {
        if (Holding) { _toRun.Add(connection); return; }
        _posted.Enqueue(connection);
        Wake();
    }

    private void Wake()
    {
        if (Interlocked.Exchange(ref _wakePending, 1) != 0) return;
        lock (_fdLock)
            if (!_fdsClosed) EpollNative.Signal(_wakeFd);
    }

    /// <summary>A reply buffer from the loop's stash, or null (holder).</summary>
    public byte[]? TakeReplyBuffer() => _replyBuffers.Count > 0 ? _replyBuffers.Pop() : null;

    /// <summary>Gives a sent batch's reply buffer back (holder): to the stash, or to LargeBuffers when big or the stash is
    /// full.</summary>
    public void GiveReplyBuffer(byte[] buffer)
    {
        if (buffer.Length == 0) return;
        if (buffer.Length <= MaxPooledReplyBuffer && _replyBuffers.Count < MaxReplyBuffers) _replyBuffers.Push(buffer);
        else Garnet.common.Util.LargeBuffers.Return(buffer);
    }

    /// <summary>Asks for connection's Flush at the end of this round (holder).</summary>
    public void FlushLater(EpollConnection connection) => _toFlush.Add(connection);

    /// <summary>Asks for connection's OnPosted in the next round (holder).</summary>
    public void RunLater(EpollConnection connection) => _toRun.Add(connection);

    /// <summary>Adds fd to the epoll set for connection with the given events; false when the kernel refuses.</summary>
    public bool Register(EpollConnection connection, int fd, uint events)
    {
        int slot;
        if (_freeSlots.Count > 0) slot = _freeSlots.Pop();
        else
        {
            slot = _slotsUsed;
            if (slot == _slots.Length)
            {
                Array.Resize(ref _slots, slot * 2);
                Array.Resize(ref _generations, slot * 2);
            }
        }
        _slots[slot] = connection;
        _slotsUsed++;
        connection.Slot = slot;
        connection.Token = (ulong)_generations[slot] << 32 | (uint)slot;
        if (!_fdsClosed && EpollNative.Control(_epfd, EpollNative.EPOLL_CTL_ADD, fd, events, connection.Token)) return true;
        Unregister(connection, fd);
        return false;
    }

    /// <summary>Removes fd from the set (before its socket is closed) and frees the connection's slot.</summary>
    public void Unregister(EpollConnection connection, int fd)
    {
        if (!_fdsClosed) EpollNative.Control(_epfd, EpollNative.EPOLL_CTL_DEL, fd, 0, 0);
        int slot = connection.Slot;
        if (slot < 0 || _slots[slot] != connection) return;
        _slots[slot] = null;
        _generations[slot]++;
        _freeSlots.Push(slot);
        _slotsUsed--;
        connection.Slot = -1;
    }

    // ---- threads and ownership ----

    private void StartThread(bool standby)
    {
        var thread = new Thread(() => ThreadMain(standby)) { IsBackground = true, Name = _name };
        lock (_threads) _threads.Add(thread);
        thread.Start();
    }

    private void ThreadMain(bool standby)
    {
        byte* events = stackalloc byte[MaxEvents * EpollNative.EventSize];
        while (true)
        {
            if (standby)
            {
                _standbyWake.Wait();
                if (_stopping) return;
            }
            standby = true;
            lock (_ownership)
            {
                LoopRelease.Holder = this;
                _io?.Attach();
                try
                {
                    while (!_stopping && !_fdsClosed && Volatile.Read(ref _reclaimers) == 0) Round(events);
                    if (_stopping) { CloseAll(); return; }
                }
                finally
                {
                    _io?.Detach();
                    LoopRelease.Holder = null;
                }
            }
            Interlocked.Increment(ref _idleStandbys);
        }
    }

    /// <summary>The handler running on the holder's thread is about to wait long: detach its connection, hand the loop to
    /// a standby thread. False when the calling thread does not hold this loop.</summary>
    bool LoopRelease.ILoop.Release()
    {
        if (!Holding) return false;
        _current?.DetachWhileBlocked();
        _io?.Detach();
        Monitor.Exit(_ownership); // LoopRelease.Release clears the holder

        while (true)
        {
            int idle = Volatile.Read(ref _idleStandbys);
            if (idle == 0) { StartThread(standby: false); break; }
            if (Interlocked.CompareExchange(ref _idleStandbys, idle - 1, idle) == idle) { _standbyWake.Release(); break; }
        }
        return true;
    }

    /// <summary>Takes the loop back after Release (the same thread): the holder yields at the end of its round.</summary>
    void LoopRelease.ILoop.Reacquire(object? detached)
    {
        Interlocked.Increment(ref _reclaimers);
        Wake();
        Monitor.Enter(_ownership);
        Interlocked.Decrement(ref _reclaimers);
        LoopRelease.Holder = this;
        _io?.Attach();
        _current = detached as EpollConnection;
        _current?.Reattach();
    }

    /// <summary>What Release detaches: the connection whose handler runs now.</summary>
    object? LoopRelease.ILoop.Current => _current;

    private void Round(byte* events)
    {
        try
        {
            FaultPoints.Hit("epoll-round"); // test seam: a failure of the loop itself is logged, the loop goes on
            bool mayBlock = _toRun.Count == 0;
            if (_io is not null && !_io.BeforeWait()) mayBlock = false;
            int n = EpollNative.Wait(_epfd, events, MaxEvents, mayBlock ? -1 : 0);
            for (int i = 0; i < n; i++)
            {
                // Disk reads the round's requests started go to the device every SubmitEvery events and after the last,
                // not only at the next wait: meanwhile the loop still has the round's replies to write.
                if (_io is not null && i > 0 && i % SubmitEvery == 0) _io.SubmitStarted();
                ulong token = EpollNative.DataAt(events, i);
                if (token == IoToken) continue; // reaped below, every round
                if (token == WakeToken)
                {
                    EpollNative.Drain(_wakeFd);
                    Volatile.Write(ref _wakePending, 0);
                    while (_posted.TryDequeue(out var posted)) Handle(posted, 0, posted: true);
                    continue;
                }
                int slot = (int)(uint)token;
                if (slot < _slots.Length && _slots[slot] is { } c && c.Token == token)
                    Handle(c, EpollNative.EventsAt(events, i), posted: false);
            }
            _io?.SubmitStarted();
            // Reads that finished post their connections to _toRun (a memory check when none did).
            _io?.Poll();
            // Work queued for this round by the loop itself (continuations, own posts), then every reply written.
            var running = _toRun;
            _toRun = SpareList();
            foreach (var c in running) Handle(c, 0, posted: true);
            running.Clear();
            _spareLists.Push(running);
            while (_toFlush.Count > 0)
            {
                var flushing = _toFlush;
                _toFlush = SpareList();
                foreach (var c in flushing)
                {
                    _current = c;
                    c.Flush();
                }
                flushing.Clear();
                _spareLists.Push(flushing);
            }
            _current = null;
        }
        catch (Exception ex)
        {
            _current = null;
            if (_stopping) return; // a thread that came back from a long wait after the loop's fds were closed
            // A connection's own failures are handled inside it; this is a bug in the loop. Keep serving the others.
            _logger?.LogError(ex, "Network loop {Name} failed", _name);
        }
    }

    private void Handle(EpollConnection c, uint events, bool posted)
    {
        _current = c;
        if (posted) c.OnPosted();
        else c.OnEvents(events);
    }

    private List<EpollConnection> SpareList() => _spareLists.Count > 0 ? _spareLists.Pop() : new();

    private void CloseAll()
    {
        // Stopping: whatever is still open is closed now (the server closes its clients before it stops the loops).
        // One connection failing to close must not end the loop's thread (and the process) nor leave the others open.
        for (int s = 0; s < _slots.Length; s++)
        {
            try { _slots[s]?.CloseNow(); }
            catch (Exception ex) { _logger?.LogError(ex, "Closing a connection of loop {Name} failed", _name); }
        }
        while (_posted.TryDequeue(out var posted))
        {
            try { posted.CloseNow(); }
            catch (Exception ex) { _logger?.LogError(ex, "Closing a connection of loop {Name} failed", _name); }
        }
    }

    public void Dispose()
    {
        if (_stopping) return;
        _stopping = true;
        lock (_fdLock) EpollNative.Signal(_wakeFd);
        _standbyWake.Release(1024);
        Thread[] threads;
        lock (_threads) threads = _threads.ToArray();
        foreach (var t in threads)
            if (t != Thread.CurrentThread) t.Join(TimeSpan.FromSeconds(5));
        // A thread still inside a long wait (a script the stop did not end) holds no ownership, or gives it back within a
        // round; one that keeps it past 5 s keeps the fds open (leaked) rather than have them closed under it.
        if (!Monitor.TryEnter(_ownership, TimeSpan.FromSeconds(5)))
        {
            _logger?.LogWarning("Network loop {Name} is still busy at stop; its epoll fds stay open", _name);
            return;
        }
        try
        {
            // Reads still in flight on the loop's ring finish first (bounded): their buffers are in use until then.
            _io?.Dispose();
            lock (_fdLock)
            {
                _fdsClosed = true;
                EpollNative.Close(_wakeFd);
                EpollNative.Close(_epfd);
            }
        }
        finally { Monitor.Exit(_ownership); }
    }
}
