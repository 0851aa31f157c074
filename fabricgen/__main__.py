from fabricgen.cli import main

main()
