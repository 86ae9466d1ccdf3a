from digest.cli import main

main()
