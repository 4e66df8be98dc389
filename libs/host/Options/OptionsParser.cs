// OptionsParser: command line (CommandLineParser) + optional config file -> GarnetServerOptions.
using CommandLine;

namespace Garnet.Options;

public static class OptionsParser
{
    /// <summary>
    /// Parses args. Returns null when the program should exit (help/version printed, or an error with exitCode 1).
    /// </summary>
    public static GarnetServerOptions? Parse(string[] args, TextWriter output, out int exitCode, out List<string> ignoredConfig)
    {
        exitCode = 0;
        ignoredConfig = [];
        using var parser = new Parser(with =>
        {
            with.HelpWriter = output;
            with.CaseSensitive = false;
            with.CaseInsensitiveEnumValues = true;
            with.AutoVersion = true;
        });
        var result = parser.ParseArguments<GarnetServerOptions>(args);
        if (result is NotParsed<GarnetServerOptions> notParsed)
        {
            exitCode = notParsed.Errors.All(e => e.Tag is ErrorType.HelpRequestedError or ErrorType.VersionRequestedError) ? 0 : 1;
            return null;
        }
        var options = result.Value;
        if (options.ConfigFile is not null) ignoredConfig = ConfigFileLoader.Load(options.ConfigFile, options);
        return options;
    }
}
