// DurableFiles: making file creation and renames survive a crash. A renamed or created file is durable only once its
// directory entry is, which takes an fsync of the directory (Linux); elsewhere this is a no-op.
using System.Runtime.InteropServices;

namespace Garnet.server.Persistence;

public static class DurableFiles
{
    private const int O_RDONLY = 0, O_DIRECTORY = 0x10000, O_CLOEXEC = 0x80000;

    [DllImport("libc", EntryPoint = "open", SetLastError = true)]
    private static extern int Open([MarshalAs(UnmanagedType.LPUTF8Str)] string path, int flags);

    [DllImport("libc", EntryPoint = "fsync", SetLastError = true)]
    private static extern int Fsync(int fd);

    [DllImport("libc", EntryPoint = "close")]
    private static extern int Close(int fd);

    /// <summary>Makes the directory's entries (creations, renames, deletions) durable.</summary>
    public static void SyncDirectory(string dir)
    {
        if (!OperatingSystem.IsLinux()) return;
        int fd = Open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) throw new IOException($"cannot open directory {dir} to sync it (errno {Marshal.GetLastPInvokeError()})");
        try
        {
            if (Fsync(fd) != 0) throw new IOException($"fsync of directory {dir} failed (errno {Marshal.GetLastPInvokeError()})");
        }
        finally { Close(fd); }
    }

    /// <summary>Renames a complete, fsynced file into place and makes the rename durable.</summary>
    public static void Publish(string temporary, string final)
    {
        File.Move(temporary, final, overwrite: true);
        SyncDirectory(Path.GetDirectoryName(Path.GetFullPath(final))!);
    }
}
