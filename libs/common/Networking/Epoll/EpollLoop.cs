// EpollLoop: one thread that serves many connections as Redis's event loop does: wait for ready sockets, run every
// ready connection's requests, then write all the replies, then wait again.
// Invariants: a connection's socket I/O, its requests and its state changes run only on its loop's thread; other
// threads reach a connection only through Post, which queues it and wakes the loop through an eventfd. Replies are
// written after every event of an epoll_wait has been handled (Flush list), so a batch of ready requests costs one wait
// and the replies go out together. A connection with more work queued (FlushAndContinue) gets it in the next round,
// after the others, so one deep pipeline cannot starve them.
using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;

namespace Garnet.common.Networking.Epoll;

internal sealed unsafe class EpollLoop : IDisposable
{
    private const int MaxEvents = 256;
    private const ulong WakeToken = ulong.MaxValue;

    private readonly int _epfd;
    private readonly int _wakeFd;
    private readonly Thread _thread;
    private readonly ILogger? _logger;
    private readonly ConcurrentQueue<EpollConnection> _posted = new();
    private int _wakePending;
    private volatile bool _stopping;

    // Slots: the epoll data of a connection is (generation << 32 | slot), so an event for a closed connection whose slot
    // was reused in the same round is recognised and dropped. Only the loop's thread touches these.
    private EpollConnection?[] _slots = new EpollConnection?[64];
    private uint[] _generations = new uint[64];
    private readonly Stack<int> _freeSlots = new();
    private int _slotsUsed;

    private List<EpollConnection> _toFlush = new(), _flushing = new();
    private List<EpollConnection> _toRun = new(), _running = new();

    public EpollLoop(int index, ILogger? logger)
    {
        _logger = logger;
        _epfd = EpollNative.CreateEpoll();
        _wakeFd = EpollNative.CreateEventFd();
        if (!EpollNative.Control(_epfd, EpollNative.EPOLL_CTL_ADD, _wakeFd, EpollNative.EPOLLIN, WakeToken))
            throw new IOException("epoll_ctl could not add the loop's eventfd");
        _thread = new Thread(Run) { IsBackground = true, Name = "epoll-loop-" + index };
        _thread.Start();
    }

    public bool OnLoopThread => Thread.CurrentThread == _thread;

    internal int EpollFd => _epfd;

    /// <summary>Connections this loop serves now.</summary>
    public int Connections => Volatile.Read(ref _slotsUsed);

    /// <summary>Queues connection to have its posted work (OnPosted) run on the loop's thread; any thread.</summary>
    public void Post(EpollConnection connection)
    {
        if (OnLoopThread) { _toRun.Add(connection); return; }
        _posted.Enqueue(connection);
        if (Interlocked.Exchange(ref _wakePending, 1) == 0) EpollNative.Signal(_wakeFd);
    }

    /// <summary>Asks for connection's Flush at the end of this round (loop thread).</summary>
    public void FlushLater(EpollConnection connection) => _toFlush.Add(connection);

    /// <summary>Asks for connection's Continue in the next round (loop thread).</summary>
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
        if (EpollNative.Control(_epfd, EpollNative.EPOLL_CTL_ADD, fd, events, connection.Token)) return true;
        Unregister(connection, fd);
        return false;
    }

    public void Modify(EpollConnection connection, int fd, uint events) =>
        EpollNative.Control(_epfd, EpollNative.EPOLL_CTL_MOD, fd, events, connection.Token);

    /// <summary>Removes fd from the set (before its socket is closed) and frees the connection's slot.</summary>
    public void Unregister(EpollConnection connection, int fd)
    {
        EpollNative.Control(_epfd, EpollNative.EPOLL_CTL_DEL, fd, 0, 0);
        int slot = connection.Slot;
        if (slot < 0 || _slots[slot] != connection) return;
        _slots[slot] = null;
        _generations[slot]++;
        _freeSlots.Push(slot);
        _slotsUsed--;
        connection.Slot = -1;
    }

    private void Run()
    {
        byte* events = stackalloc byte[MaxEvents * EpollNative.EventSize];
        while (!_stopping)
        {
            try
            {
                int n = EpollNative.Wait(_epfd, events, MaxEvents, _toRun.Count > 0 || _toFlush.Count > 0 ? 0 : -1);
                for (int i = 0; i < n; i++)
                {
                    ulong token = EpollNative.DataAt(events, i);
                    if (token == WakeToken)
                    {
                        EpollNative.Drain(_wakeFd);
                        Volatile.Write(ref _wakePending, 0);
                        while (_posted.TryDequeue(out var posted)) posted.OnPosted();
                        continue;
                    }
                    int slot = (int)(uint)token;
                    if (slot < _slots.Length && _slots[slot] is { } c && c.Token == token)
                        c.OnEvents(EpollNative.EventsAt(events, i));
                }
                // Work queued for this round by the loop itself (continuations, own posts), then every reply written.
                (_running, _toRun) = (_toRun, _running);
                foreach (var c in _running) c.OnPosted();
                _running.Clear();
                while (_toFlush.Count > 0)
                {
                    (_flushing, _toFlush) = (_toFlush, _flushing);
                    foreach (var c in _flushing) c.Flush();
                    _flushing.Clear();
                }
            }
            catch (Exception ex)
            {
                // A connection's own failures are handled inside it; this is a bug in the loop. Keep serving the others.
                _logger?.LogError(ex, "Network loop {Name} failed", _thread.Name);
                _toFlush.Clear();
                _running.Clear();
            }
        }
        // Stopping: whatever is still open is closed now (the server closes its clients before it stops the loops).
        for (int s = 0; s < _slots.Length; s++) _slots[s]?.CloseNow();
        while (_posted.TryDequeue(out var posted)) posted.CloseNow();
    }

    public void Dispose()
    {
        if (_stopping) return;
        _stopping = true;
        EpollNative.Signal(_wakeFd);
        if (!OnLoopThread) _thread.Join(TimeSpan.FromSeconds(5));
        EpollNative.Close(_wakeFd);
        EpollNative.Close(_epfd);
    }
}
