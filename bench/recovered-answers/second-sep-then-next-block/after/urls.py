urlpatterns = [path('', index)]
