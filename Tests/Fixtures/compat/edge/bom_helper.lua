return { name = "helper" }
