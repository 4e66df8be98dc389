// EpollNative: the Linux calls the epoll network engine makes (epoll, eventfd, non-blocking recv/send on a socket's fd).
// Invariants: only EpollLoop and EpollConnection call these, on their loop's thread (Wake on any thread); an fd is used
// here only while the Socket that owns it is open, and it is removed from the epoll set before that Socket is disposed.
// epoll_event is 12 bytes (packed) on x86-64 and 16 bytes elsewhere; events are read through EventSize and offsets.
using System.Runtime.InteropServices;

namespace Garnet.common.Networking.Epoll;

internal static unsafe partial class EpollNative
{
    public const uint EPOLLIN = 0x001, EPOLLOUT = 0x004, EPOLLERR = 0x008, EPOLLHUP = 0x010, EPOLLET = 1u << 31;
    public const int EPOLL_CTL_ADD = 1, EPOLL_CTL_DEL = 2, EPOLL_CTL_MOD = 3;
    private const int EPOLL_CLOEXEC = 0x80000, EFD_CLOEXEC = 0x80000, EFD_NONBLOCK = 0x800;
    private const int F_GETFL = 3, F_SETFL = 4, O_NONBLOCK = 0x800;
    private const int MSG_NOSIGNAL = 0x4000;
    public const int EAGAIN = 11, EINTR = 4;

    /// <summary>Bytes of one epoll_event: packed on x86-64 only.</summary>
    public static readonly int EventSize = RuntimeInformation.ProcessArchitecture == Architecture.X64 ? 12 : 16;
    private static readonly int DataOffset = RuntimeInformation.ProcessArchitecture == Architecture.X64 ? 4 : 8;

    public static bool IsSupported => OperatingSystem.IsLinux();

    [LibraryImport("libc", EntryPoint = "epoll_create1", SetLastError = true)]
    private static partial int EpollCreate1(int flags);

    [LibraryImport("libc", EntryPoint = "epoll_ctl", SetLastError = true)]
    private static partial int EpollCtl(int epfd, int op, int fd, byte* ev);

    [LibraryImport("libc", EntryPoint = "epoll_wait", SetLastError = true)]
    private static partial int EpollWaitNative(int epfd, byte* events, int maxEvents, int timeoutMs);

    [LibraryImport("libc", EntryPoint = "eventfd", SetLastError = true)]
    private static partial int EventFd(uint initval, int flags);

    [LibraryImport("libc", EntryPoint = "read", SetLastError = true)]
    private static partial nint Read(int fd, byte* buf, nint count);

    [LibraryImport("libc", EntryPoint = "write", SetLastError = true)]
    private static partial nint Write(int fd, byte* buf, nint count);

    [LibraryImport("libc", EntryPoint = "recv", SetLastError = true)]
    private static partial nint RecvNative(int fd, byte* buf, nint len, int flags);

    [LibraryImport("libc", EntryPoint = "send", SetLastError = true)]
    private static partial nint SendNative(int fd, byte* buf, nint len, int flags);

    [LibraryImport("libc", EntryPoint = "fcntl", SetLastError = true)]
    private static partial int Fcntl(int fd, int cmd, int arg);

    [LibraryImport("libc", EntryPoint = "close", SetLastError = true)]
    private static partial int CloseNative(int fd);

    public static int CreateEpoll() => Check(EpollCreate1(EPOLL_CLOEXEC), "epoll_create1");

    public static int CreateEventFd() => Check(EventFd(0, EFD_CLOEXEC | EFD_NONBLOCK), "eventfd");

    public static void Close(int fd) => CloseNative(fd);

    public static void SetNonBlocking(int fd)
    {
        int flags = Check(Fcntl(fd, F_GETFL, 0), "fcntl");
        Check(Fcntl(fd, F_SETFL, flags | O_NONBLOCK), "fcntl");
    }

    /// <summary>Adds, changes or removes fd's interest; false (with errno) when the kernel refuses.</summary>
    public static bool Control(int epfd, int op, int fd, uint events, ulong data)
    {
        byte* ev = stackalloc byte[16];
        *(uint*)ev = events;
        *(ulong*)(ev + DataOffset) = data;
        return EpollCtl(epfd, op, fd, ev) == 0;
    }

    /// <summary>Waits for events; the count, 0 on a timeout or an interrupted wait.</summary>
    public static int Wait(int epfd, byte* events, int maxEvents, int timeoutMs)
    {
        int n = EpollWaitNative(epfd, events, maxEvents, timeoutMs);
        if (n >= 0) return n;
        int errno = Marshal.GetLastPInvokeError();
        if (errno == EINTR) return 0;
        throw new IOException($"epoll_wait failed: errno {errno}");
    }

    public static uint EventsAt(byte* events, int i) => *(uint*)(events + i * EventSize);
    public static ulong DataAt(byte* events, int i) => *(ulong*)(events + i * EventSize + DataOffset);

    /// <summary>Wakes a loop waiting on efd (any thread).</summary>
    public static void Signal(int efd)
    {
        ulong one = 1;
        Write(efd, (byte*)&one, 8);
    }

    /// <summary>Resets efd after a wake.</summary>
    public static void Drain(int efd)
    {
        ulong value;
        Read(efd, (byte*)&value, 8);
    }

    /// <summary>Bytes received (0: the peer closed), or -errno (-EAGAIN: nothing to read now).</summary>
    public static int Receive(int fd, Span<byte> into)
    {
        fixed (byte* p = into)
        {
            nint n = RecvNative(fd, p, into.Length, 0);
            return n >= 0 ? (int)n : -Marshal.GetLastPInvokeError();
        }
    }

    /// <summary>Bytes sent, or -errno (-EAGAIN: the socket's send buffer is full).</summary>
    public static int Send(int fd, ReadOnlySpan<byte> data)
    {
        fixed (byte* p = data)
        {
            nint n = SendNative(fd, p, data.Length, MSG_NOSIGNAL);
            return n >= 0 ? (int)n : -Marshal.GetLastPInvokeError();
        }
    }

    private static int Check(int result, string call)
    {
        if (result < 0) throw new IOException($"{call} failed: errno {Marshal.GetLastPInvokeError()}");
        return result;
    }
}
