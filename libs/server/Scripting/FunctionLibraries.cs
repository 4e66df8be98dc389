// FunctionLibraries: the libraries FUNCTION LOAD made (name -> code, functions with flags and descriptions) and the
// function-name index FCALL looks up.
// Invariants: accessed under ScriptRunner's gate (FUNCTION LOAD/DELETE/FLUSH/RESTORE also hold every key stripe, being
// keyless writes); a function name belongs to one library; a library's functions live in the FUNCTION runtime as
// registry references released when the library goes.
namespace Garnet.server.Scripting;

public sealed class FunctionLibraries
{
    public sealed class Library
    {
        public required string Name { get; init; }
        public required byte[] Code { get; init; }
        public required List<Function> Functions { get; init; }
    }

    public sealed class Function
    {
        public required string Name { get; init; }
        public string? Description { get; init; }
        public required string[] Flags { get; init; }
        public required int Ref { get; init; }
        public required Library Library { get; init; }
        public bool NoWrites => Flags.Contains("no-writes");
    }

    private readonly Dictionary<string, Library> _libraries = new(StringComparer.Ordinal);
    private readonly Dictionary<string, Function> _functions = new(StringComparer.Ordinal);

    public IEnumerable<Library> All => _libraries.Values.OrderBy(l => l.Name, StringComparer.Ordinal);
    public int LibraryCount => _libraries.Count;
    public int FunctionCount => _functions.Count;
    /// <summary>Bytes of the loaded libraries' code (INFO used_memory_functions).</summary>
    public long CodeBytes => Volatile.Read(ref _codeBytes);
    private long _codeBytes;

    public Library? Find(string name) => _libraries.GetValueOrDefault(name);
    public Function? FindFunction(string name) => _functions.GetValueOrDefault(name);

    public void Add(Library lib)
    {
        if (_libraries.TryGetValue(lib.Name, out var old)) Volatile.Write(ref _codeBytes, _codeBytes - old.Code.Length);
        _libraries[lib.Name] = lib;
        Volatile.Write(ref _codeBytes, _codeBytes + lib.Code.Length);
        foreach (var f in lib.Functions) _functions[f.Name] = f;
    }

    internal void Remove(Library lib, LuaRuntime? rt)
    {
        if (_libraries.Remove(lib.Name)) Volatile.Write(ref _codeBytes, _codeBytes - lib.Code.Length);
        foreach (var f in lib.Functions)
        {
            _functions.Remove(f.Name);
            rt?.Release(f.Ref);
        }
    }

    public void Clear()
    {
        _libraries.Clear();
        _functions.Clear();
        Volatile.Write(ref _codeBytes, 0);
    }

    public static bool ValidName(string name) => name.Length > 0 && name.All(c => c is (>= 'a' and <= 'z') or (>= 'A' and <= 'Z') or (>= '0' and <= '9') or '_');

    /// <summary>Compiles and runs code (with its "#!lua name=..." line) and adds the library it defines. replace: an existing
    /// library of that name is replaced. Returns the library name, or null with Redis's error (without "ERR ").</summary>
    internal static string? Load(ScriptRunner runner, byte[] code, bool replace, out string? error)
    {
        var flags = ScriptCache.ParseShebang(code, library: true, out int shebang, out string? name, out error);
        if (shebang == 0 && error is null) { error = "Missing library metadata"; return null; }
        if (flags is null) return null;
        if (name is null) { error = "Library name was not given"; return null; }
        if (!ValidName(name)) { error = "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"; return null; }
        var libs = runner.Libraries;
        var old = libs.Find(name);
        if (old is not null && !replace) { error = $"Library '{name}' already exists"; return null; }
        var rt = runner.FunctionRuntime;
        int? chunk = rt.Compile(ScriptCache.Compilable(code, shebang), "@user_function", out string? compileError);
        if (chunk is null) { error = "Error compiling function: " + compileError; return null; }
        List<RegisteredFunction>? registered;
        try { registered = rt.LoadLibrary(chunk.Value, out error); }
        finally { rt.Release(chunk.Value); }
        if (registered is null) { error = error == "FUNCTION LOAD timeout" ? error : "Error registering functions: " + error; return null; }
        void ReleaseAll() { foreach (var r in registered) rt.Release(r.Ref); }
        if (registered.Count == 0) { error = "No functions registered"; return null; }
        foreach (var r in registered)
        {
            var existing = libs.FindFunction(r.Name);
            if (existing is not null && existing.Library != old)
            {
                ReleaseAll();
                error = $"Function {r.Name} already exists";
                return null;
            }
        }
        if (old is not null) libs.Remove(old, rt);
        var lib = new Library { Name = name, Code = code, Functions = new() };
        foreach (var r in registered) lib.Functions.Add(new Function { Name = r.Name, Description = r.Description, Flags = r.Flags, Ref = r.Ref, Library = lib });
        libs.Add(lib);
        return name;
    }
}
