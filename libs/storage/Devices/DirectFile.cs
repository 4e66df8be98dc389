// DirectFile: opens a file for unbuffered I/O (Linux O_DIRECT: data bypasses the page cache). Returns null where
// the OS or the file system does not allow it (other systems, tmpfs, ...); callers then use ordinary buffered I/O.
using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace Garnet.storage.Devices;

internal static partial class DirectFile
{
    private const int O_RDWR = 0x2, O_CREAT = 0x40, O_CLOEXEC = 0x80000;

    /// <summary>O_DIRECT differs by architecture; 0 where we do not know it.</summary>
    private static int DirectFlag => RuntimeInformation.ProcessArchitecture switch
    {
        Architecture.X64 or Architecture.X86 => 0x4000,
        Architecture.Arm64 or Architecture.Arm => 0x10000,
        _ => 0,
    };

    [LibraryImport("libc", EntryPoint = "open", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int Open(string path, int flags, int mode);

    public static SafeFileHandle? TryOpen(string path)
    {
        if (!OperatingSystem.IsLinux() || DirectFlag == 0) return null;
        int fd = Open(path, O_RDWR | O_CREAT | O_CLOEXEC | DirectFlag, 420 /* 0644 */);
        if (fd < 0) return null;
        return new SafeFileHandle(fd, ownsHandle: true);
    }
}
